import { readFile, realpath, stat, writeFile } from 'node:fs/promises';
import { createTwoFilesPatch, FILE_HEADERS_ONLY } from 'diff';
import { z } from 'zod';
import { defineTool } from './define-tool.ts';
import { HeadTailBuffer, looksBinary } from './output-cap.ts';
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

/** `edit_file`: exact string replacement in one file, answered with a unified diff of the change. */
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
        const file = await resolveInWorkspace(ctx.cwd, args.path, { mustExist: true });
        const shown = toWorkspacePath(await realpath(ctx.cwd), file);
        if ((await stat(file)).isDirectory()) return failure(`${shown} is a folder, not a file.`);
        const raw = await readFile(file, { signal: ctx.signal });
        if (looksBinary(raw.subarray(0, 8192)))
          return failure(`${shown} is a binary file; edit_file edits text.`);
        const before = raw.toString('utf8');
        const edit = planEdit(before, args);
        if (typeof edit === 'string') return failure(`${edit.replace('{file}', shown)}`);
        await writeFile(file, edit.after, { encoding: 'utf8', signal: ctx.signal });
        const patch = createTwoFilesPatch(
          `a/${shown}`,
          `b/${shown}`,
          before,
          edit.after,
          undefined,
          undefined,
          { context: 3, headerOptions: FILE_HEADERS_ONLY },
        );
        const diff = new HeadTailBuffer(diffCapBytes);
        diff.push(Buffer.from(patch));
        const what = edit.count === 1 ? '1 occurrence' : `${edit.count} occurrences`;
        return `Edited ${shown}: replaced ${what}.\n\n${diff.text()}`;
      }),
  });
}

type EditArgs = { old_string: string; new_string: string; replace_all?: boolean | undefined };

/** The edited text and how many places changed, or the reason the edit cannot be made. */
export function planEdit(before: string, args: EditArgs): { after: string; count: number } | string {
  let oldText = args.old_string;
  let newText = args.new_string;
  let count = countOccurrences(before, oldText);
  // Models write "\n"; a CRLF file still deserves a match, and keeps its line endings.
  if (count === 0 && before.includes('\r\n') && oldText.includes('\n') && !oldText.includes('\r')) {
    oldText = oldText.replaceAll('\n', '\r\n');
    newText = newText.replaceAll('\n', '\r\n');
    count = countOccurrences(before, oldText);
  }
  if (count === 0) {
    return (
      'old_string was not found in {file}. It must match exactly, including whitespace and indentation; ' +
      'read the file again and copy the text without the line-number prefix.'
    );
  }
  if (count > 1 && args.replace_all !== true) {
    return (
      `old_string occurs ${count} times in {file}. Add surrounding lines to make it unique, ` +
      'or set replace_all to true to replace every occurrence.'
    );
  }
  // split/join and slicing, not String.replace: `$&` and friends in new_string must stay literal.
  if (args.replace_all === true) return { after: before.split(oldText).join(newText), count };
  const at = before.indexOf(oldText);
  return { after: before.slice(0, at) + newText + before.slice(at + oldText.length), count: 1 };
}

function countOccurrences(text: string, search: string): number {
  let count = 0;
  for (let at = text.indexOf(search); at !== -1; at = text.indexOf(search, at + search.length)) count++;
  return count;
}
