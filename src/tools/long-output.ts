// What the model reads of a tool output too long for its context: the head, a note, the tail. Pure text
// work, so the same output always reads the same (replay compares the log byte for byte).

/** Where the whole output went: the path the model can read it at, or why it could not be saved. */
export type WholeOutput = { path: string } | { failure: string };

/** The default cap on a tool result the model reads whole, in characters (UTF-16 code units). */
export const defaultMaxOutputChars = 30_000;

/** The smallest cap allowed: the note alone takes a few hundred characters. */
export const minMaxOutputChars = 2_000;

const maxFailureChars = 200;

/**
 * The head and tail of `content` with a note between them saying how much was cut, which lines, and how
 * to read them (`read_file` with `offset` and `limit` on the saved file), at most `maxChars` characters in
 * all. Head and tail end and start on line breaks where a line break lies in their outer half, so lines
 * are not cut in two without need; a surrogate pair is never split.
 *
 * @example
 * cutLongOutput('x\n'.repeat(100_000), 30_000, { path: '/agentchart-outputs/s1/1-1-call_1.txt' });
 */
export function cutLongOutput(content: string, maxChars: number, whole: WholeOutput): string {
  const saved = 'path' in whole ? whole : { failure: clip(whole.failure) };
  const totalLines = lineCount(content);
  // The longest the note can be: every number at its largest.
  const reserve = note(saved, {
    cut: content.length,
    total: content.length,
    first: totalLines,
    last: totalLines,
    totalLines,
  }).length;
  const budget = Math.max(0, maxChars - reserve - 2);
  const head = headOf(content, Math.floor(budget / 2));
  const tailStart = tailStartOf(content, budget - Math.floor(budget / 2));
  const tail = content.slice(tailStart);
  const first = lineCount(head, true) + 1;
  const tailLine = lineCount(content.slice(0, tailStart), true) + 1;
  // The tail's first line is shown whole when the tail starts on a line break.
  const last = content[tailStart - 1] === '\n' ? tailLine - 1 : tailLine;
  const text = note(saved, {
    cut: content.length - head.length - tail.length,
    total: content.length,
    first,
    last: Math.max(last, first),
    totalLines,
  });
  return `${head}${head.endsWith('\n') || head === '' ? '' : '\n'}${text}\n${tail}`;
}

type Span = { cut: number; total: number; first: number; last: number; totalLines: number };

function note(whole: WholeOutput, span: Span): string {
  const lines = span.first === span.last ? `line ${span.first}` : `lines ${span.first}-${span.last}`;
  const cut = `[... ${span.cut} of ${span.total} characters cut here (${lines} of ${span.totalLines})`;
  if ('failure' in whole) return `${cut}; the whole output could not be saved: ${whole.failure}]`;
  const limit = Math.min(span.last - span.first + 1, 2000);
  const read = JSON.stringify({ path: whole.path, offset: span.first, limit });
  return `${cut}. The whole output is saved read-only; read the rest with read_file ${read}.]`;
}

/** Lines of `text`; with `breaksOnly`, just the line breaks (the complete lines before a position). */
function lineCount(text: string, breaksOnly = false): number {
  let breaks = 0;
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) breaks++;
  if (breaksOnly) return breaks;
  return text === '' || text.endsWith('\n') ? breaks : breaks + 1;
}

function headOf(content: string, size: number): string {
  let head = content.slice(0, size);
  const lastBreak = head.lastIndexOf('\n');
  if (lastBreak >= size / 2) head = head.slice(0, lastBreak + 1);
  else if (isHighSurrogate(head.charCodeAt(head.length - 1))) head = head.slice(0, -1);
  return head;
}

function tailStartOf(content: string, size: number): number {
  let start = content.length - size;
  const firstBreak = content.indexOf('\n', start);
  if (firstBreak !== -1 && firstBreak + 1 - start <= size / 2) start = firstBreak + 1;
  else if (isLowSurrogate(content.charCodeAt(start))) start++;
  return start;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

function clip(text: string): string {
  const line = text.replace(/\s+/g, ' ');
  return line.length <= maxFailureChars ? line : `${line.slice(0, maxFailureChars)}...`;
}
