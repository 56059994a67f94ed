import { isUtf8 } from 'node:buffer';
import { mkdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod/v4';
import { openRegularFile } from '../core/regular-file.ts';
import { defineTool } from './define-tool.ts';
import { linkNote, type WriteOutcome, writeWholeFile } from './file-write.ts';
import { byteLength } from './output-cap.ts';
import { skillFolderHolding, skillNotWritable } from './skill-files.ts';
import { replacementCharacter } from './text-encoding.ts';
import { failure, guardFileErrors } from './tool-failure.ts';
import { resolveInWorkspace, toWorkspacePath } from './workspace.ts';

const input = z.object({
  path: z
    .string()
    .describe('File to write, relative to the workspace root. Missing parent folders are created.'),
  content: z.string().describe('The complete new content of the file.'),
});

/**
 * `write_file`: creates or overwrites a whole file inside the workspace, creating parent folders. The
 * content is written as UTF-8. Special files (FIFOs, sockets, devices) are refused without being opened
 * for writing, and so is content that would replace bytes of a non-UTF-8 file with the U+FFFD that
 * `read_file` showed for them. A file with other hard links is replaced, not rewritten (see `writeWholeFile`).
 */
export function writeFileTool() {
  return defineTool({
    name: 'write_file',
    description:
      'Create a file, or replace the whole content of an existing one, inside the workspace. Parent folders ' +
      'are created as needed. To change part of an existing file, prefer edit_file.',
    input,
    access: 'write',
    run: (args, ctx) =>
      guardFileErrors(args.path, async () => {
        // Said as such before "outside the workspace": the model was told the folder, as read-only.
        const named = await skillFolderHolding(ctx.skillFolders, path.resolve(ctx.cwd, args.path));
        if (named !== undefined) throw skillNotWritable(args.path, named);
        const file = await resolveInWorkspace(ctx.cwd, args.path, { forWrite: true });
        // A skill's folder is read-only to the agent, also where it lies inside the workspace.
        const skillFolder = await skillFolderHolding(ctx.skillFolders, file);
        if (skillFolder !== undefined) throw skillNotWritable(args.path, skillFolder);
        const shown = toWorkspacePath(await realpath(ctx.cwd), file);
        // Before creating folders: a parent that is a file is reported as ENOTDIR, not as a failed mkdir.
        await stat(file).catch((error: NodeJS.ErrnoException) => {
          if (error.code !== 'ENOENT') throw error;
        });
        if (args.content.includes(replacementCharacter) && (await holdsNonUtf8(file))) {
          return failure(
            `${shown} is not valid UTF-8, and the content holds ${replacementCharacter}, which read_file shows ` +
              'in place of bytes that are not UTF-8: writing it would destroy those bytes. Use edit_file to ' +
              'change the parts you need; it keeps the bytes it does not edit.',
          );
        }
        await mkdir(path.dirname(file), { recursive: true });
        const opened = await openRegularFile(file, 'write');
        if (!('handle' in opened)) {
          return failure(
            `${shown} is ${opened.kind}, not a regular file; write_file writes regular files only.`,
          );
        }
        let outcome: WriteOutcome;
        try {
          outcome = await writeWholeFile(file, opened, Buffer.from(args.content, 'utf8'));
        } finally {
          await opened.handle.close();
        }
        const bytes = byteLength(args.content);
        return opened.existed === undefined
          ? `Created ${shown} (${bytes} bytes).`
          : `Overwrote ${shown} (${bytes} bytes; it held ${opened.info.size} bytes before).${linkNote(shown, outcome)}`;
      }),
  });
}

/** Whether `file` is an existing regular file whose bytes are not all UTF-8. */
async function holdsNonUtf8(file: string): Promise<boolean> {
  const opened = await openRegularFile(file, 'read').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (opened === undefined || !('handle' in opened)) return false;
  try {
    return !isUtf8(await opened.handle.readFile());
  } finally {
    await opened.handle.close();
  }
}
