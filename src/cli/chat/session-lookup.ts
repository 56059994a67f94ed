// `--continue` and `--resume <id>`: which recorded session of a workspace the chat opens.
import { readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { openRegularFile } from '../../core/regular-file.ts';
import { sessionFileLocation, sessionFilePath } from '../../session/session-files.ts';
import { CliError } from '../cli-error.ts';
import { sessionSearchFolders } from '../session-folders.ts';

/** A session to open: the folder of its store and its id. */
export type SessionChoice = { dir: string; sessionId: string };

/**
 * `--resume <id or file>`: a path (it has a `/` or ends in `.jsonl`) names the file; anything else is a
 * session id, looked up in each of `folders` in turn (where sessions go now, then the workspace's older
 * `.agentchart/sessions`). A missing session is a `CliError` (exit 2).
 */
export async function sessionByIdOrPath(
  idOrPath: string,
  folders: readonly string[],
  cwd: string,
): Promise<SessionChoice> {
  const looksLikePath = idOrPath.includes('/') || idOrPath.endsWith('.jsonl');
  const candidates = looksLikePath
    ? [resolve(cwd, idOrPath)]
    : folders.map((folder) => join(folder, `${idOrPath}.jsonl`));
  for (const file of candidates) if (await isFile(file)) return sessionFileLocation(file);
  const where = looksLikePath ? candidates[0] : `"${idOrPath}" in ${folders.join(' or ')}`;
  throw new CliError(`no session ${where}; list them with: ls ${folders[0] ?? cwd}`, { exitCode: 2 });
}

function isFile(file: string): Promise<boolean> {
  return stat(file).then(
    (info) => info.isFile(),
    () => false,
  );
}

/** The session a chat opens first: the one `--resume` names, the latest with `--continue`, else none. */
export async function firstSession(
  flags: { resume?: string; continue?: boolean },
  folders: readonly string[],
  cwd: string,
): Promise<SessionChoice | undefined> {
  if (flags.resume) return sessionByIdOrPath(flags.resume, folders, cwd);
  return flags.continue ? latestSession(folders) : undefined;
}

/**
 * `--continue`: the session of this workspace written to last, in any of `folders`, leaving out
 * subagents' sessions (their `session.start` names a parent). `undefined` when there is none.
 */
export async function latestSession(folders: readonly string[]): Promise<SessionChoice | undefined> {
  const lists = await Promise.all(
    folders.map(async (folder) =>
      (await readdir(folder).catch(() => [] as string[])).map((name) => join(folder, name)),
    ),
  );
  const candidates = await Promise.all(
    lists
      .flat()
      .filter((file) => file.endsWith('.jsonl'))
      .map(async (file) => {
        const info = await stat(file).catch(() => undefined);
        return info?.isFile() ? { file, modified: info.mtimeMs } : undefined;
      }),
  );
  const newestFirst = candidates
    .filter((entry) => entry !== undefined)
    .sort((a, b) => b.modified - a.modified);
  for (const { file } of newestFirst) {
    if (await isTopLevel(file)) return sessionFileLocation(file);
  }
  return undefined;
}

/** Whether a session's first line is a `session.start` without a parent. */
async function isTopLevel(file: string): Promise<boolean> {
  try {
    const parsed = JSON.parse(await firstLine(file)) as { type?: unknown; data?: { parent?: unknown } };
    return parsed.type === 'session.start' && parsed.data?.parent === undefined;
  } catch {
    return false;
  }
}

/** The first line of a file, read in chunks: a session.start holds the system prompt and every tool's schema. */
async function firstLine(file: string, limit = 4 * 1024 * 1024): Promise<string> {
  // A FIFO among the sessions would block a plain open, and with it the session list.
  const opened = await openRegularFile(file, 'read');
  if (!('handle' in opened)) throw new Error(`${file} is ${opened.kind}, not a session log`);
  const { handle } = opened;
  try {
    const chunks: Buffer[] = [];
    let position = 0;
    while (position < limit) {
      const buffer = Buffer.alloc(64 * 1024);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
      if (bytesRead === 0) break;
      const newline = buffer.subarray(0, bytesRead).indexOf(0x0a);
      chunks.push(buffer.subarray(0, newline === -1 ? bytesRead : newline));
      if (newline !== -1) break;
      position += bytesRead;
    }
    return Buffer.concat(chunks).toString('utf8');
  } finally {
    await handle.close();
  }
}

/** `text` as one shell word: as it is when that is safe, else in single quotes. */
function shellWord(text: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}

/**
 * The command that continues a chat's session, as printed when the chat ends: `agentchart --resume ID`,
 * with `--cwd` when the workspace is not the folder the chat was started in, and `--session-dir` when the
 * session is not where `--resume` looks for that workspace by default — so the printed command works as
 * it is, from the same folder.
 */
export function resumeCommand(place: {
  sessionId: string;
  /** The folder of the session's log. */
  dir: string;
  /** The workspace, and the folder the command was run from. */
  workspace: string;
  from: string;
  /** The folders `--resume` searches for the workspace without `--session-dir`. */
  defaultFolders: readonly string[];
}): string {
  const words = ['agentchart'];
  if (resolve(place.workspace) !== resolve(place.from)) words.push('--cwd', shellWord(place.workspace));
  if (!place.defaultFolders.some((folder) => resolve(folder) === resolve(place.dir))) {
    words.push('--session-dir', shellWord(place.dir));
  }
  words.push('--resume', place.sessionId);
  return words.join(' ');
}

/** Where a chat's session is, where the chat ran, and its environment (which names the default folders). */
type ChatPlace = Omit<Parameters<typeof resumeCommand>[0], 'defaultFolders'> & {
  env: Record<string, string | undefined>;
};

/** What a chat prints as it ends: where its session's log is, and the command that continues it. */
export function farewellLines(place: ChatPlace): string[] {
  const defaultFolders = sessionSearchFolders(place.workspace, place.env, undefined, place.from);
  return [
    `Session log: ${sessionFilePath(place.dir, place.sessionId)}`,
    `Continue it: ${resumeCommand({ ...place, defaultFolders })}`,
  ];
}
