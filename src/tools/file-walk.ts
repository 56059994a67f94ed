import { readFile } from 'node:fs/promises';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { glob } from 'tinyglobby';

/** Folders no search descends into, whatever `.gitignore` says. */
export const alwaysIgnored: readonly string[] = ['**/.git/**', '**/node_modules/**'];

/** Tells whether a workspace-relative path (with `/`) is ignored by the workspace's `.gitignore` files. */
export type IgnoreFilter = (relativePath: string) => boolean;

/**
 * Reads every `.gitignore` in the workspace (the root one and nested ones) into one filter. A nested
 * file applies below its own folder, and a deeper rule overrides a shallower one, as in git.
 */
export async function loadIgnoreFilter(rootReal: string, signal: AbortSignal): Promise<IgnoreFilter> {
  const files = await glob('**/.gitignore', {
    cwd: rootReal,
    ignore: [...alwaysIgnored],
    dot: true,
    followSymbolicLinks: false,
    signal,
  });
  const rules: { folder: string; matcher: Ignore }[] = [];
  for (const file of files.sort(byDepth)) {
    const text = await readFile(path.join(rootReal, file), { encoding: 'utf8', signal });
    const folder = path.posix.dirname(file);
    rules.push({ folder: folder === '.' ? '' : folder, matcher: ignore().add(text) });
  }
  return (relativePath) => {
    let ignored = false;
    for (const { folder, matcher } of rules) {
      if (folder !== '' && !relativePath.startsWith(`${folder}/`)) continue;
      const result = matcher.test(folder === '' ? relativePath : relativePath.slice(folder.length + 1));
      if (result.ignored) ignored = true;
      else if (result.unignored) ignored = false;
    }
    return ignored;
  };
}

/**
 * Files under `baseRelative` (a workspace-relative folder, `.` for the root) matching `patterns`,
 * as sorted workspace-relative paths, without ignored ones. Symbolic links are neither followed nor
 * listed (as ripgrep does without `--follow`), so a link pointing outside the workspace is never walked.
 */
export async function walkFiles(options: {
  rootReal: string;
  baseRelative: string;
  patterns: string[];
  signal: AbortSignal;
}): Promise<string[]> {
  const { rootReal, baseRelative, patterns, signal } = options;
  const isIgnored = await loadIgnoreFilter(rootReal, signal);
  const found = await glob(patterns, {
    cwd: path.join(rootReal, baseRelative),
    ignore: [...alwaysIgnored],
    dot: true,
    followSymbolicLinks: false,
    signal,
  });
  return found
    .map((file) => (baseRelative === '.' ? file : `${baseRelative}/${file}`))
    .filter((file) => !isIgnored(file))
    .sort(compareText);
}

/** Code-unit order: deterministic and independent of the locale. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function byDepth(a: string, b: string): number {
  return a.split('/').length - b.split('/').length || compareText(a, b);
}
