import { ConfigError } from '../errors/config-error.ts';

/** The operating system's error code of `error`, if it has one. */
export function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * What an operating-system error says about a path that a person or host gave, in words; `undefined`
 * for failures that are not about the path (a full disk, an I/O error), which stay what they are.
 */
function pathProblem(error: unknown, path: string): string | undefined {
  switch (errorCode(error)) {
    case 'ENOENT':
      return `${path} does not exist`;
    case 'EISDIR':
    case 'ERR_FS_EISDIR':
      return `${path} is a directory, not a session log`;
    case 'ENOTDIR':
      return `a part of the path is not a directory (${path})`;
    case 'EACCES':
    case 'EPERM':
      return `permission denied (${path})`;
    case 'ELOOP':
      return `${path} is a loop of symbolic links`;
    case 'ENAMETOOLONG':
      return `the path is too long (${path})`;
    case 'EROFS':
      return `the file system is read-only (${path})`;
    default:
      return undefined;
  }
}

/**
 * Turns a file-system failure on `path` into a `ConfigError` that says what could not be done (`action`,
 * e.g. `read session "s"`) and why, keeping the original as `cause`. Failures that are not about the path
 * are returned unchanged, for the caller to rethrow.
 */
export function pathError(error: unknown, action: string, path: string): unknown {
  const problem = pathProblem(error, path);
  return problem === undefined ? error : new ConfigError(`cannot ${action}: ${problem}`, { cause: error });
}
