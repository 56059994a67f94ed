// Where instruction files are looked for, and how one is read: bounded, and never by opening a FIFO or a
// device (docs/instructions-and-skills.md).
import { lstat, realpath } from 'node:fs/promises';
import path from 'node:path';
import { openRegularFile } from '../core/regular-file.ts';
import { messageOf } from '../errors/describe-value.ts';

/** The names read in each folder from the repository root down to the workspace, in this order. */
export const projectInstructionNames: readonly string[] = [
  'AGENTS.md',
  'CLAUDE.md',
  '.claude/CLAUDE.md',
  'CLAUDE.local.md',
];

/** The user's own files, read first (relative to the home folder). */
export const userInstructionNames: readonly string[] = ['.agentchart/AGENTS.md', '.claude/CLAUDE.md'];

/** The user's folders an import may reach (relative to the home folder). */
export const userInstructionFolders: readonly string[] = ['.agentchart', '.claude'];

/** What reading a candidate found: its text, or why it holds none. */
export type CandidateRead =
  | { kind: 'file'; real: string; text: string }
  | { kind: 'missing' }
  | { kind: 'outside' }
  | { kind: 'special'; what: string }
  | { kind: 'unreadable'; what: string };

/**
 * The folder holding `.git` (a folder, or a file as in a linked worktree or a submodule) at or above
 * `workspace`; undefined when the workspace is in no repository. `workspace` is a real path.
 */
export async function repositoryRoot(workspace: string): Promise<string | undefined> {
  for (let folder = workspace; ; folder = path.dirname(folder)) {
    const found = await lstat(path.join(folder, '.git')).then(
      () => true,
      () => false,
    );
    if (found) return folder;
    if (path.dirname(folder) === folder) return undefined;
  }
}

/** The folders from `top` down to `workspace`, `top` first (`workspace` lies in `top`). */
export function foldersDownTo(top: string, workspace: string): string[] {
  const folders = [top];
  const relative = path.relative(top, workspace);
  if (relative === '') return folders;
  let folder = top;
  for (const part of relative.split(path.sep)) {
    folder = path.join(folder, part);
    folders.push(folder);
  }
  return folders;
}

/** The real path of a folder, or undefined when it does not exist. */
export async function realFolder(folder: string): Promise<string | undefined> {
  return realpath(folder).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return undefined;
    throw error;
  });
}

/**
 * Reads at most `maxChars` characters of `file` (through links). A missing file (or one under something
 * that is not a folder) is `missing`; a real path `allowed` refuses is `outside` and is not opened; a FIFO, socket, device or folder is
 * `special` and is never opened; one that cannot be
 * read (no permission, a loop of links) is `unreadable`. `what` says why in words.
 */
export async function readCandidate(
  file: string,
  maxChars: number,
  allowed: (real: string) => boolean,
): Promise<CandidateRead> {
  let real: string;
  let opened: Awaited<ReturnType<typeof openRegularFile>>;
  try {
    real = await realpath(file);
    // Checked before anything is opened: a file outside is never read, not even to be dropped.
    if (!allowed(real)) return { kind: 'outside' };
    opened = await openRegularFile(real, 'read');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'missing' };
    return { kind: 'unreadable', what: `it cannot be read (${code ?? messageOf(error)})` };
  }
  if (!('handle' in opened)) return { kind: 'special', what: `it is ${opened.kind}` };
  try {
    // Reads no more than can be shown (a UTF-8 character is at most 4 bytes), however large the file.
    const buffer = Buffer.alloc(maxChars * 4 + 4);
    const { bytesRead } = await opened.handle.read(buffer, 0, buffer.length, 0);
    return { kind: 'file', real, text: buffer.subarray(0, bytesRead).toString('utf8') };
  } finally {
    await opened.handle.close();
  }
}
