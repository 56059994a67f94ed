import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import picomatch from 'picomatch';
import { openRegularFile } from '../core/regular-file.ts';
import { walkFiles } from './file-walk.ts';
import { compilePattern, type GrepPattern } from './grep-pattern.ts';
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
  /** Live progress of a long JavaScript search (`grep.progress`); not logged. */
  onProgress?: (progress: GrepProgress) => void;
};

/** Reported by the JavaScript search after every `progressBytes` of text it has searched. */
export type GrepProgress = { type: 'grep.progress'; bytesSearched: number; filesSearched: number };

export type GrepOutcome = { hits: GrepHit[] } | { error: string };

// Files larger than this are skipped by the JavaScript search, as a model never needs a 20 MB match.
const maxFileBytes = 20 * 1024 * 1024;
// The search gives the event loop a turn (and checks for abort) after this much text.
const progressBytes = 256 * 1024;

/** Whether a file (workspace-relative) passes the `glob` filter; a glob without `/` matches the base name. */
export function globFilter(glob: string | undefined, baseRelative: string): (file: string) => boolean {
  if (glob === undefined) return () => true;
  const matches = picomatch(glob, { dot: true, basename: !glob.includes('/') });
  return (file) => matches(baseRelative === '.' ? file : path.posix.relative(baseRelative, file));
}

/**
 * The search in plain JavaScript, used when ripgrep is not installed (or not wanted). It walks the same
 * files ripgrep would (ignores applied; binary and special files skipped), matches line by line with a
 * linear-time engine and returns hits in path and line order. It never holds the event loop for long: after
 * every 256 KiB of text it reports progress and lets other work (a cancel, a log flush) run.
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
  const pace = new Pace(query);
  const hits: GrepHit[] = [];
  for (const file of files) {
    query.signal.throwIfAborted();
    const content = await readSearchable(path.join(query.rootReal, file), query.signal);
    if (content === undefined) continue;
    hits.push(...(await searchText(file, content.toString('utf8'), regex, query.context, pace)));
    pace.fileDone();
    if (hits.length > query.maxHits) return { hits: hits.slice(0, query.maxHits + 1) };
  }
  return { hits };
}

/** The bytes of a regular text file small enough to search; undefined for anything else. */
async function readSearchable(file: string, signal: AbortSignal): Promise<Buffer | undefined> {
  const opened = await openRegularFile(file, 'read');
  if (!('handle' in opened)) return undefined;
  try {
    if ((await opened.handle.stat()).size > maxFileBytes) return undefined;
    const content = await opened.handle.readFile({ signal });
    return looksBinary(content.subarray(0, 8192)) ? undefined : content;
  } finally {
    await opened.handle.close();
  }
}

/** Counts the text searched and, every `progressBytes`, reports it and yields to the event loop. */
class Pace {
  private bytes = 0;
  private files = 0;
  private sinceYield = 0;

  constructor(private readonly query: GrepQuery) {}

  /** Counts searched text; true when it is time to `breathe`. */
  searched(bytes: number): boolean {
    this.bytes += bytes;
    this.sinceYield += bytes;
    return this.sinceYield >= progressBytes;
  }

  async breathe(): Promise<void> {
    this.sinceYield = 0;
    this.query.onProgress?.({ type: 'grep.progress', bytesSearched: this.bytes, filesSearched: this.files });
    await nextTurn();
    this.query.signal.throwIfAborted();
  }

  fileDone(): void {
    this.files++;
  }
}

/** Matching lines of one file with `context` lines around each; overlapping windows merge. */
async function searchText(
  file: string,
  text: string,
  regex: GrepPattern,
  context: number,
  pace: Pace,
): Promise<GrepHit[]> {
  const lines = text.split(/\r?\n/);
  if (lines.at(-1) === '') lines.pop();
  const matched: boolean[] = [];
  for (const line of lines) {
    matched.push(regex.test(line));
    if (pace.searched(line.length + 1)) await pace.breathe();
  }
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
