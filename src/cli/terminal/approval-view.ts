// What the person sees before answering an approval: everything the call would do. A command is shown
// whole (wrapped, never cut); a write or an edit as the full diff against the file as it is now.
import { isAbsolute, join } from 'node:path';
import { createTwoFilesPatch, FILE_HEADERS_ONLY } from 'diff';
import type { ApprovalRequest } from '../../actors/approval.ts';
import { readRegularFile } from '../../core/read-limited.ts';
import { prefixRuleFor } from '../../permissions/command-rules.ts';
import { stringArgument } from '../../permissions/rules.ts';
import { planEdit } from '../../tools/edit-file.ts';
import { wrapWords } from './wrap-words.ts';

export type Paint = (style: 'red' | 'green' | 'cyan' | 'dim' | 'bold', text: string) => string;

/** `text` broken into lines of at most `width` characters; every character is kept. */
export function wrapText(text: string, width: number): string[] {
  const lines: string[] = [];
  for (const line of text.split('\n')) {
    if (line.length === 0) lines.push('');
    for (let start = 0; start < line.length; start += width) lines.push(line.slice(start, start + width));
  }
  return lines;
}

/** A unified diff's lines coloured: additions green, removals red, hunk headers cyan. */
export function paintDiff(lines: readonly string[], paint: Paint): string[] {
  return lines.map((line) => {
    if (line.startsWith('+++') || line.startsWith('---')) return paint('bold', line);
    if (line.startsWith('+')) return paint('green', line);
    if (line.startsWith('-')) return paint('red', line);
    if (line.startsWith('@@')) return paint('cyan', line);
    return line;
  });
}

/** The prefix rule offered for this call ("allow this prefix"), for calls that run a command. */
export function offeredRule(request: ApprovalRequest): string | undefined {
  const command = stringArgument(request.input, 'command');
  return command === undefined ? undefined : prefixRuleFor(request.tool, command);
}

/**
 * The lines shown before the question: what the call is, and all of what it would do. `width` is the
 * terminal's (wrapping only; nothing is cut).
 */
export async function approvalLines(
  request: ApprovalRequest,
  options: { cwd: string; width: number; paint: Paint },
): Promise<string[]> {
  const { paint } = options;
  const width = Math.max(20, options.width - 4);
  const framed = (lines: string[]) => lines.map((line) => `  ${paint('dim', '│')} ${line}`);
  const command = stringArgument(request.input, 'command');
  // Prose wraps between words; what the call does (a command, a diff, its input) is wrapped whole.
  const title = (text: string) => wrapWords(text, options.width, '  ').map((line) => paint('bold', line));
  if (command !== undefined) {
    return [...title(`${request.tool} wants to run:`), ...framed(wrapText(command, width))];
  }
  const diff = await previewDiff(request, options.cwd);
  const path = stringArgument(request.input, 'path') ?? '';
  if (diff?.length === 0) {
    return title(`${request.tool} would leave ${path} as it is: no change (content identical)`);
  }
  if (diff !== undefined) {
    return [
      ...title(`${request.tool} wants to change ${path} (${diff.length} diff lines):`),
      ...framed(paintDiff(diff, paint).flatMap((line) => wrapText(line, width))),
    ];
  }
  const shown = JSON.stringify(request.input, null, 2) ?? String(request.input);
  return [...title(`${request.tool} wants to run with:`), ...framed(wrapText(shown, width))];
}

// Larger files are not diffed for the prompt: the diff would be too long to read there anyway.
const previewLimit = 16 * 1024 * 1024;

/**
 * The diff a `write_file` or `edit_file` call would make, against the file as it is now; for an edit that
 * cannot apply, a note saying so and the text it would put in; no lines when the file would stay as it is
 * (a diff of headers alone tells a person nothing). `undefined` for other tools.
 */
async function previewDiff(request: ApprovalRequest, cwd: string): Promise<string[] | undefined> {
  if (request.tool !== 'write_file' && request.tool !== 'edit_file') return undefined;
  const path = stringArgument(request.input, 'path');
  if (path === undefined) return undefined;
  // The model names the file: a FIFO there would block the prompt, a link to /dev/zero fill memory.
  const read = await readRegularFile(isAbsolute(path) ? path : join(cwd, path), previewLimit).catch(() => {
    // Missing (a new file) or unreadable: the diff is against nothing, and the tool reports the rest.
    return undefined;
  });
  if (read !== undefined && !('bytes' in read)) return [`(no diff to show: ${path} ${read.refused})`];
  const before = read?.bytes;
  let after: string;
  if (request.tool === 'write_file') {
    after = stringArgument(request.input, 'content') ?? '';
  } else {
    const oldString = stringArgument(request.input, 'old_string') ?? '';
    const newString = stringArgument(request.input, 'new_string') ?? '';
    const replaceAll = (request.input as { replace_all?: unknown }).replace_all === true;
    const plan =
      before && oldString !== ''
        ? planEdit(before, { old_string: oldString, new_string: newString, replace_all: replaceAll })
        : 'the file cannot be read';
    if (typeof plan === 'string') {
      const why = plan.replaceAll('{file}', path);
      return [
        `(this edit will fail: ${why})`,
        ...oldString.split('\n').map((l) => `-${l}`),
        ...newString.split('\n').map((l) => `+${l}`),
      ];
    }
    after = plan.after.toString('utf8');
  }
  if (before?.equals(Buffer.from(after, 'utf8'))) return [];
  const patch = createTwoFilesPatch(
    `a/${path}`,
    `b/${path}`,
    before?.toString('utf8') ?? '',
    after,
    undefined,
    undefined,
    { context: 3, headerOptions: FILE_HEADERS_ONLY },
  );
  const lines = patch.replace(/\n$/, '').split('\n');
  // The patch starts with an `Index:`/`===` banner in some versions of `diff`; the file headers say it all.
  return lines.filter((line) => !line.startsWith('Index: ') && !/^=+$/.test(line));
}
