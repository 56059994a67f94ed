import type { Dirent } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { glob } from 'tinyglobby';
import { describeKind, openRegularFile } from '../core/regular-file.ts';

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
    const text = await readIgnoreFile(path.join(rootReal, file), signal);
    if (text === undefined) continue;
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

const ignoreFileNames = new Set(['.gitignore', '.ignore', '.rgignore']);

/**
 * Ignore files (`.gitignore`, `.ignore`, `.rgignore`, `.git/info/exclude`) in the workspace that are not
 * regular files once links are followed: a FIFO, or a link to a device (a repository can hold such a link).
 * ripgrep opens every ignore file it meets and would wait on one of these for ever. The glob library does
 * not list such entries at all, so this walks the folders itself (not into `.git`, `node_modules` or
 * linked folders, as the searches do not).
 */
export async function specialIgnoreFiles(rootReal: string, signal: AbortSignal): Promise<string[]> {
  const special: string[] = [];
  const check = async (relative: string) => {
    const info = await stat(path.join(rootReal, relative)).catch((error: NodeJS.ErrnoException) => {
      // A dangling link or a missing exclude file is no ignore file at all.
      if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return undefined;
      throw error;
    });
    if (info !== undefined && describeKind(info) !== undefined) special.push(relative);
  };
  await check('.git/info/exclude');
  let folders = [''];
  while (folders.length > 0) {
    signal.throwIfAborted();
    // A level of folders at a time, read side by side: the walk costs little beside ripgrep's own.
    const levels = await Promise.all(
      folders.map(async (folder) => {
        const below: string[] = [];
        for (const entry of await listFolder(path.join(rootReal, folder))) {
          const relative = folder === '' ? entry.name : `${folder}/${entry.name}`;
          if (entry.isDirectory() && entry.name !== '.git' && entry.name !== 'node_modules')
            below.push(relative);
          else if (ignoreFileNames.has(entry.name) && !entry.isFile()) await check(relative);
        }
        return below;
      }),
    );
    folders = levels.flat();
  }
  return special.sort(compareText);
}

// A folder that vanished or cannot be read holds no ignore file ripgrep could open either.
function listFolder(folder: string): Promise<Dirent[]> {
  return readdir(folder, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT' || error.code === 'EACCES' || error.code === 'ENOTDIR') return [];
    throw error;
  });
}

/** The text of a `.gitignore`; undefined when it is not a regular file (a FIFO would never answer). */
async function readIgnoreFile(file: string, signal: AbortSignal): Promise<string | undefined> {
  const opened = await openRegularFile(file, 'read');
  if (!('handle' in opened)) return undefined;
  try {
    return await opened.handle.readFile({ encoding: 'utf8', signal });
  } finally {
    await opened.handle.close();
  }
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
