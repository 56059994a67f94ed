import { lstat, readlink, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { WorkspaceError } from '../errors/workspace-error.ts';

export type ResolveOptions = {
  /** Refuse a path that does not exist (reading, editing, listing). */
  mustExist?: boolean;
  /** Refuse the workspace root itself and existing folders as a target (writing a file). */
  forWrite?: boolean;
};

// A chain of dangling symlinks longer than this is treated as a loop, like the kernel's ELOOP.
const maxLinkHops = 40;

/** Whether `candidate` is `root` or lies below it. Both must be absolute and normalised. */
export function isInside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  return (
    relative === '' ||
    (!relative.startsWith(`..${path.sep}`) && relative !== '..' && !path.isAbsolute(relative))
  );
}

/** The workspace-relative form of an absolute path inside it, with `/` separators (`.` for the root). */
export function toWorkspacePath(rootReal: string, absolute: string): string {
  const relative = path.relative(rootReal, absolute);
  return relative === '' ? '.' : relative.split(path.sep).join('/');
}

/**
 * Resolves a path given by the model to a real absolute path inside the workspace, or throws a
 * `WorkspaceError` the model can read.
 *
 * Both the root and the target are resolved to real paths: for the target, the deepest existing ancestor
 * is `realpath`ed and the rest appended, and a dangling symlink is followed by hand, so a symlinked parent
 * folder, a symlinked file or a link to a file not yet created that points outside is caught. Relative
 * paths are taken from the root; an absolute path is accepted only when it lies inside the root. A `..`
 * that stays inside (`src/../README.md`) is fine. Callers must use the returned path, not the input: the
 * check holds for the returned path only.
 *
 * @example
 * const file = await resolveInWorkspace(ctx.cwd, input.path, { mustExist: true });
 */
export async function resolveInWorkspace(
  root: string,
  userPath: string,
  options: ResolveOptions = {},
): Promise<string> {
  if (userPath.includes('\0')) {
    throw new WorkspaceError(
      'nul_byte',
      userPath,
      'The path contains a NUL byte, which no file name may hold.',
    );
  }
  const rootReal = await realpath(root);
  const lexical = lexicalTarget(root, rootReal, userPath);
  if (!isInside(rootReal, lexical)) throw outside(userPath, rootReal);
  const { real, exists } = await resolveReal(lexical, 0);
  if (!isInside(rootReal, real)) throw outside(userPath, rootReal, ' through a symbolic link');
  if (options.mustExist && !exists) {
    throw new WorkspaceError('not_found', userPath, `${display(userPath)} does not exist in the workspace.`);
  }
  if (options.forWrite) await checkWritable(userPath, rootReal, real, exists);
  return real;
}

function lexicalTarget(root: string, rootReal: string, userPath: string): string {
  const trimmed = userPath.trim() === '' ? '.' : userPath;
  if (!path.isAbsolute(trimmed)) return path.resolve(rootReal, trimmed);
  const absolute = path.resolve(trimmed);
  // An absolute path spelled through the root as given (say /tmp/ws when /tmp is a link) is rebased.
  const given = path.resolve(root);
  if (given !== rootReal && isInside(given, absolute))
    return path.join(rootReal, path.relative(given, absolute));
  return absolute;
}

/** Real path of `target`: realpath of the deepest existing ancestor plus the missing tail. */
async function resolveReal(target: string, hops: number): Promise<{ real: string; exists: boolean }> {
  const tail: string[] = [];
  let current = target;
  for (;;) {
    try {
      const real = await realpath(current);
      return { real: path.join(real, ...tail), exists: tail.length === 0 };
    } catch (error) {
      if (!isMissing(error)) throw error;
    }
    const link = await danglingLink(current);
    if (link !== undefined) {
      if (hops >= maxLinkHops)
        throw new WorkspaceError('outside', target, 'Too many levels of symbolic links.');
      const parentReal = (await resolveReal(path.dirname(current), hops + 1)).real;
      const followed = await resolveReal(path.resolve(parentReal, link), hops + 1);
      return { real: path.join(followed.real, ...tail), exists: false };
    }
    const parent = path.dirname(current);
    if (parent === current) return { real: path.join(current, ...tail), exists: false };
    tail.unshift(path.basename(current));
    current = parent;
  }
}

/** The link text of `candidate` when it is a symlink whose target is missing; undefined otherwise. */
async function danglingLink(candidate: string): Promise<string | undefined> {
  try {
    const info = await lstat(candidate);
    return info.isSymbolicLink() ? await readlink(candidate) : undefined;
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

async function checkWritable(
  userPath: string,
  rootReal: string,
  real: string,
  exists: boolean,
): Promise<void> {
  if (real === rootReal) {
    throw new WorkspaceError(
      'not_writable',
      userPath,
      'The workspace root is a folder, not a file to write.',
    );
  }
  if (exists && (await stat(real)).isDirectory()) {
    throw new WorkspaceError('not_writable', userPath, `${display(userPath)} is a folder, not a file.`);
  }
}

function outside(userPath: string, rootReal: string, how = ''): WorkspaceError {
  return new WorkspaceError(
    'outside',
    userPath,
    `${display(userPath)} is outside the workspace${how}. Only paths inside ${rootReal} are allowed; ` +
      'use a path relative to the workspace root.',
  );
}

function display(userPath: string): string {
  return JSON.stringify(userPath);
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** A workspace-relative path for a sentence: the root reads as "the workspace". */
export function where(relative: string): string {
  return relative === '.' ? 'the workspace' : relative;
}
