// The `@path` imports of an instruction file, found as Claude Code finds them
// (docs/instructions-and-skills.md, "Project instructions"): `@` at the start of a line or after white
// space, then the path up to the next white space (`\ ` keeps a space in it), never inside a fenced code
// block or an inline code span.

// A path after `@`: anything but white space and backslashes, or an escaped space.
const importPattern = /(?:^|\s)@((?:[^\s\\]|\\ )+)/g;

/**
 * The paths a file imports, in the order they appear, each once: `@docs/git.md` gives `docs/git.md`. A
 * `#fragment` is dropped; `@` followed by something that is not a path (`@@`, `@#`, an e-mail's tail, which
 * has no white space before the `@`) is not an import.
 *
 * @example
 * findImports('See @README.md and `@not-this`.\n@~/.claude/mine.md'); // ['README.md', '~/.claude/mine.md']
 */
export function findImports(markdown: string): string[] {
  const found: string[] = [];
  for (const match of withoutCode(markdown).matchAll(importPattern)) {
    const written = match[1]!.replaceAll('\\ ', ' ');
    const hash = written.indexOf('#');
    const target = hash === -1 ? written : written.slice(0, hash);
    if (looksLikePath(target) && !found.includes(target)) found.push(target);
  }
  return found;
}

function looksLikePath(target: string): boolean {
  if (target.startsWith('./') || target.startsWith('~/')) return true;
  if (target.startsWith('/')) return target !== '/';
  return /^[\p{L}\p{N}._-]/u.test(target);
}

/** The text with every fenced code block and inline code span blanked out (line breaks kept). */
function withoutCode(markdown: string): string {
  const lines = markdown.split('\n');
  let fence: { marker: string; length: number } | undefined;
  const kept: string[] = [];
  let paragraph: string[] = [];
  const flush = () => {
    if (paragraph.length > 0) kept.push(...blankCodeSpans(paragraph.join('\n')).split('\n'));
    paragraph = [];
  };
  for (const line of lines) {
    const opening = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (fence) {
      kept.push('');
      const closing = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line);
      if (closing && closing[1]![0] === fence.marker && closing[1]!.length >= fence.length) fence = undefined;
    } else if (opening && !(opening[1]![0] === '`' && line.slice(opening[0].length).includes('`'))) {
      flush();
      kept.push('');
      fence = { marker: opening[1]![0]!, length: opening[1]!.length };
    } else if (line.trim() === '') {
      flush();
      kept.push(line);
    } else {
      paragraph.push(line);
    }
  }
  flush();
  return kept.join('\n');
}

// A span opens with a run of backticks and closes at the next run of the same length, within a paragraph
// (CommonMark); a run that is never closed is plain text.
function blankCodeSpans(text: string): string {
  let out = '';
  let at = 0;
  while (at < text.length) {
    const open = text.indexOf('`', at);
    if (open === -1) break;
    const run = /^`+/.exec(text.slice(open))![0].length;
    const close = findRun(text, open + run, run);
    if (close === -1) {
      out += text.slice(at, open + run);
      at = open + run;
      continue;
    }
    out += text.slice(at, open) + text.slice(open, close + run).replace(/[^\n]/g, ' ');
    at = close + run;
  }
  return out + text.slice(at);
}

function findRun(text: string, from: number, length: number): number {
  for (let at = text.indexOf('`', from); at !== -1; at = text.indexOf('`', at)) {
    const run = /^`+/.exec(text.slice(at))![0].length;
    if (run === length) return at;
    at += run;
  }
  return -1;
}
