import { readFile } from 'node:fs/promises';
import path from 'node:path';
import picomatch from 'picomatch';
import { walkFiles } from './file-walk.ts';
import { looksBinary } from './output-cap.ts';

/** One line of grep output: a matching line, or a context line around one. */
export type GrepHit = { path: string; line: number; text: string; match: boolean };

/** A search, already confined: `targetRelative` is a workspace-relative file or folder. */
export type GrepQuery = {
  rootReal: string;
  targetRelative: string;
  targetIsFile: boolean;
  pattern: string;
  glob: string | undefined;
  context: number;
  /** Stop after this many hits; one more is collected to know that the output was capped. */
  maxHits: number;
  signal: AbortSignal;
};

export type GrepOutcome = { hits: GrepHit[] } | { error: string };

// Files larger than this are skipped by the JavaScript search, as a model never needs a 20 MB match.
const maxFileBytes = 20 * 1024 * 1024;

/** Compiles the pattern as JavaScript reads it; a leading `(?i)` (ripgrep's spelling) means ignore case. */
export function compilePattern(pattern: string): RegExp | string {
  const insensitive = pattern.startsWith('(?i)');
  try {
    return new RegExp(insensitive ? pattern.slice(4) : pattern, insensitive ? 'i' : '');
  } catch (error) {
    return `Invalid regular expression ${JSON.stringify(pattern)}: ${(error as Error).message}`;
  }
}

/** Whether a file (workspace-relative) passes the `glob` filter; a glob without `/` matches the base name. */
export function globFilter(glob: string | undefined, baseRelative: string): (file: string) => boolean {
  if (glob === undefined) return () => true;
  const matches = picomatch(glob, { dot: true, basename: !glob.includes('/') });
  return (file) => matches(baseRelative === '.' ? file : path.posix.relative(baseRelative, file));
}

/**
 * The search in plain JavaScript, used when ripgrep is not installed (or not wanted). It walks the same
 * files ripgrep would (ignores applied, binary files skipped) and returns hits in path and line order.
 */
export async function searchWithJavaScript(query: GrepQuery): Promise<GrepOutcome> {
  const regex = compilePattern(query.pattern);
  if (typeof regex === 'string') return { error: regex };
  const files = query.targetIsFile
    ? [query.targetRelative]
    : (
        await walkFiles({
          rootReal: query.rootReal,
          baseRelative: query.targetRelative,
          patterns: ['**/*'],
          signal: query.signal,
        })
      ).filter(globFilter(query.glob, query.targetRelative));
  const hits: GrepHit[] = [];
  for (const file of files) {
    query.signal.throwIfAborted();
    const content = await readFile(path.join(query.rootReal, file), { signal: query.signal });
    if (content.length > maxFileBytes || looksBinary(content.subarray(0, 8192))) continue;
    hits.push(...searchText(file, content.toString('utf8'), regex, query.context));
    if (hits.length > query.maxHits) return { hits: hits.slice(0, query.maxHits + 1) };
  }
  return { hits };
}

/** Matching lines of one file with `context` lines around each; overlapping windows merge. */
export function searchText(file: string, text: string, regex: RegExp, context: number): GrepHit[] {
  const lines = text.split(/\r?\n/);
  if (lines.at(-1) === '') lines.pop();
  const matched = lines.map((line) => regex.test(line));
  const shown = new Set<number>();
  matched.forEach((isMatch, index) => {
    if (!isMatch) return;
    for (
      let near = Math.max(0, index - context);
      near <= Math.min(lines.length - 1, index + context);
      near++
    ) {
      shown.add(near);
    }
  });
  return [...shown]
    .sort((a, b) => a - b)
    .map((index) => ({ path: file, line: index + 1, text: lines[index]!, match: matched[index]! }));
}
