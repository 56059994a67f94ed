import { isUtf8 } from 'node:buffer';
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { createTwoFilesPatch, FILE_HEADERS_ONLY } from 'diff';
import { z } from 'zod/v4';
import { openRegularFile } from '../core/regular-file.ts';
import { defineTool } from './define-tool.ts';
import { linkNote, type WriteOutcome, writeWholeFile } from './file-write.ts';
import { HeadTailBuffer, looksBinary } from './output-cap.ts';
import { skillFolderHolding, skillNotWritable } from './skill-files.ts';
import { replacementCharacter } from './text-encoding.ts';
import { failure, guardFileErrors } from './tool-failure.ts';
import { resolveInWorkspace, toWorkspacePath } from './workspace.ts';

const input = z.object({
  path: z.string().describe('File to edit, relative to the workspace root.'),
  old_string: z
    .string()
    .describe('Exact text to replace, including whitespace and indentation. Must occur exactly once.'),
  new_string: z.string().describe('The text to put in its place (must differ from old_string).'),
  replace_all: z
    .boolean()
    .optional()
    .describe('Replace every occurrence instead of exactly one (default false).'),
});

const diffCapBytes = 20_000;

/**
 * `edit_file`: exact string replacement in one file, answered with a unified diff of the change. The edit
 * is made on the file's bytes (old_string and new_string as UTF-8), so every byte outside the replaced
 * text stays as it was: a byte-order mark, CRLF line endings and bytes that are not UTF-8 alike. A file with
 * other hard links is replaced by a new file holding those bytes, not rewritten (see `writeWholeFile`).
 */
export function editFileTool() {
  return defineTool({
    name: 'edit_file',
    description:
      'Replace exact text in an existing file. old_string must match the file byte for byte (copy it from ' +
      'read_file output without the line-number prefix) and must occur exactly once, unless replace_all is ' +
      'true; add surrounding lines to make it unique. Returns a unified diff of the change.',
    input,
    access: 'write',
    run: (args, ctx) =>
      guardFileErrors(args.path, async () => {
        if (args.old_string === '') return failure('old_string is empty. To create a file, use write_file.');
        if (args.old_string === args.new_string) {
          return failure('old_string and new_string are the same, so the edit would change nothing.');
        }
        // Said as such before "outside the workspace": the model was told the folder, as read-only.
        const named = await skillFolderHolding(ctx.skillFolders, path.resolve(ctx.cwd, args.path));
        if (named !== undefined) throw skillNotWritable(args.path, named);
        const file = await resolveInWorkspace(ctx.cwd, args.path, { mustExist: true });
        // A skill's folder is read-only to the agent, also where it lies inside the workspace.
        const skillFolder = await skillFolderHolding(ctx.skillFolders, file);
        if (skillFolder !== undefined) throw skillNotWritable(args.path, skillFolder);
        const shown = toWorkspacePath(await realpath(ctx.cwd), file);
        const opened = await openRegularFile(file, 'edit');
        if (!('handle' in opened)) {
          return opened.isDirectory
            ? failure(`${shown} is a folder, not a file.`)
            : failure(`${shown} is ${opened.kind}, not a regular file; edit_file edits regular files only.`);
        }
        try {
          const before = await opened.handle.readFile({ signal: ctx.signal });
          if (looksBinary(before.subarray(0, 8192)))
            return failure(`${shown} is a binary file; edit_file edits text.`);
          const edit = planEdit(before, args);
          if (typeof edit === 'string') return failure(edit.replaceAll('{file}', shown));
          ctx.signal.throwIfAborted();
          const outcome = await writeWholeFile(file, opened, edit.after);
          return describeEdit(shown, before, edit, outcome);
        } finally {
          await opened.handle.close();
        }
      }),
  });
}

function describeEdit(
  shown: string,
  before: Buffer,
  edit: { after: Buffer; count: number },
  outcome: WriteOutcome,
): string {
  const patch = createTwoFilesPatch(
    `a/${shown}`,
    `b/${shown}`,
    before.toString('utf8'),
    edit.after.toString('utf8'),
    undefined,
    undefined,
    { context: 3, headerOptions: FILE_HEADERS_ONLY },
  );
  const diff = new HeadTailBuffer(diffCapBytes);
  diff.push(Buffer.from(patch));
  const what = edit.count === 1 ? '1 occurrence' : `${edit.count} occurrences`;
  const encoding = isUtf8(before)
    ? ''
    : ` ${shown} is not valid UTF-8: the bytes you did not edit were kept as they were, and your text was ` +
      'written as UTF-8.';
  return `Edited ${shown}: replaced ${what}.${encoding}${linkNote(shown, outcome)}\n\n${diff.text()}`;
}

type EditArgs = { old_string: string; new_string: string; replace_all?: boolean | undefined };

/**
 * The edited bytes and how many places changed, or the reason the edit cannot be made (with `{file}` for
 * the file's name). old_string is looked for as UTF-8 among the file's bytes.
 */
export function planEdit(before: Buffer, args: EditArgs): { after: Buffer; count: number } | string {
  let oldText = args.old_string;
  let newText = args.new_string;
  let count = countOccurrences(before, Buffer.from(oldText));
  // Models write "\n"; a CRLF file still deserves a match, and keeps its line endings.
  if (count === 0 && before.includes('\r\n') && oldText.includes('\n') && !oldText.includes('\r')) {
    oldText = oldText.replaceAll('\n', '\r\n');
    newText = newText.replaceAll('\n', '\r\n');
    count = countOccurrences(before, Buffer.from(oldText));
  }
  if (count === 0) return notFound(before, args.old_string);
  if (count > 1 && args.replace_all !== true) {
    return (
      `old_string occurs ${count} times in {file}. Add surrounding lines to make it unique, ` +
      'or set replace_all to true to replace every occurrence.'
    );
  }
  return { after: replaceBytes(before, Buffer.from(oldText), Buffer.from(newText), count), count };
}

function notFound(before: Buffer, oldText: string): string {
  const message =
    'old_string was not found in {file}. It must match exactly, including whitespace and indentation; ' +
    'read the file again and copy the text without the line-number prefix.';
  if (!oldText.includes(replacementCharacter) || isUtf8(before)) return message;
  return (
    `${message} {file} is not valid UTF-8, and old_string holds ${replacementCharacter}, which read_file ` +
    'shows in place of bytes that are not UTF-8: choose old_string from lines without it.'
  );
}

/** Replaces the first `count` occurrences of `search` (which do not overlap) with `replacement`. */
function replaceBytes(bytes: Buffer, search: Buffer, replacement: Buffer, count: number): Buffer {
  const parts: Buffer[] = [];
  let from = 0;
  for (let found = 0; found < count; found++) {
    const at = bytes.indexOf(search, from);
    parts.push(bytes.subarray(from, at), replacement);
    from = at + search.length;
  }
  parts.push(bytes.subarray(from));
  return Buffer.concat(parts);
}

function countOccurrences(bytes: Buffer, search: Buffer): number {
  let count = 0;
  for (let at = bytes.indexOf(search); at !== -1; at = bytes.indexOf(search, at + search.length)) count++;
  return count;
}
