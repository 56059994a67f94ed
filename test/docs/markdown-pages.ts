// Reads the project's Markdown pages as the doc checks need them: their links, the anchors their headings
// make (GitHub's rule), and their fenced code blocks with the block's language and marks.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

export const repoRoot = resolve(import.meta.dirname, '../..');

/** A fenced code block: ```<lang> <marks…>, its text and the line its first text line is on. */
export type CodeBlock = { lang: string; marks: string[]; text: string; line: number };
export type Link = { target: string; line: number };
export type Page = { file: string; path: string; text: string; blocks: CodeBlock[]; links: Link[] };

/** Folders whose Markdown is copied as test data, not written here: their links are not ours. */
const notOurs = ['docs/claude-code/corpus'];

function markdownBelow(folder: string): string[] {
  const absolute = join(repoRoot, folder);
  if (!statSync(absolute, { throwIfNoEntry: false })?.isDirectory()) return [];
  return readdirSync(absolute, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.md'))
    .map((entry) => relative(repoRoot, join(entry.parentPath, entry.name)))
    .filter((file) => !notOurs.some((folder) => file.startsWith(`${folder}/`)))
    .sort();
}

/** README.md and every page of docs/, diagrams/ and examples/ (the API reference included). */
export function projectPages(): Page[] {
  const files = [
    'README.md',
    ...markdownBelow('docs'),
    ...markdownBelow('diagrams'),
    ...markdownBelow('examples'),
  ];
  return files.map((file) => readPage(file));
}

/** The hand-written pages, whose code blocks are checked: not the API reference, made from the TSDoc. */
export function writtenPages(pages: Page[]): Page[] {
  return pages.filter(
    (page) => !page.file.startsWith('docs/api/') && !page.file.startsWith('docs/claude-code/'),
  );
}

export function readPage(file: string): Page {
  const path = join(repoRoot, file);
  const text = readFileSync(path, 'utf8');
  const { blocks, prose } = splitFences(text);
  return { file, path, text, blocks, links: linksIn(prose) };
}

/** Fenced blocks, and the text with every fenced line blanked (line numbers kept) for link reading. */
function splitFences(text: string): { blocks: CodeBlock[]; prose: string[] } {
  const lines = text.split('\n');
  const blocks: CodeBlock[] = [];
  const prose: string[] = [];
  let open: { fence: string; lang: string; marks: string[]; line: number; body: string[] } | undefined;
  for (const [index, line] of lines.entries()) {
    const fence = /^\s*(`{3,}|~{3,})\s*([^`\s]*)\s*(.*)$/.exec(line);
    if (open === undefined && fence) {
      const marks = fence[3]!.split(/\s+/).filter(Boolean);
      open = { fence: fence[1]!, lang: fence[2]!.toLowerCase(), marks, line: index + 2, body: [] };
      prose.push('');
    } else if (open !== undefined && closes(line, open.fence)) {
      blocks.push({ lang: open.lang, marks: open.marks, text: open.body.join('\n'), line: open.line });
      open = undefined;
      prose.push('');
    } else if (open !== undefined) {
      open.body.push(line);
      prose.push('');
    } else prose.push(line);
  }
  if (open !== undefined) throw new Error(`a code block opened at line ${open.line - 1} is never closed`);
  return { blocks, prose };
}

/** A closing fence: only fence characters, the opening one's kind, at least as many. */
function closes(line: string, fence: string): boolean {
  const trimmed = line.trim();
  return trimmed.length >= fence.length && trimmed === fence[0]!.repeat(trimmed.length);
}

/** Inline links and images, and reference definitions, outside code spans. */
function linksIn(prose: string[]): Link[] {
  const links: Link[] = [];
  for (const [index, raw] of prose.entries()) {
    const line = raw.replaceAll(/(`+)[^`]*?\1/g, (span) => ' '.repeat(span.length));
    for (const match of line.matchAll(/!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g))
      links.push({ target: match[1]!, line: index + 1 });
    const definition = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/.exec(line);
    if (definition) links.push({ target: definition[1]!, line: index + 1 });
  }
  return links;
}

/**
 * The anchors a page's headings make on GitHub: the heading's text lower-cased, every character that is
 * not a letter, digit, mark, `_`, `-` or space dropped, spaces made `-`; a repeat gets `-1`, `-2`, ….
 * Explicit `<a id>`/`<a name>` anchors count too.
 */
export function anchorsOf(page: Page): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const { prose } = splitFences(page.text);
  for (const line of prose) {
    for (const match of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(match[1]!);
    const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const slug = slugOf(heading[1]!);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

export function slugOf(headingMarkdown: string): string {
  const text = headingMarkdown
    .replaceAll(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replaceAll(/<[^>]+>/g, '')
    .replaceAll(/[*`]/g, '')
    .replaceAll(/(^|\s)_+|_+(\s|$)/g, '$1$2');
  return text
    .toLowerCase()
    .replaceAll(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replaceAll(' ', '-');
}
