// How a session's files are named in a folder: `<sessionId>.jsonl` the log, `<sessionId>.lock` the lock a
// live agent holds. The file store writes them; the CLI, the inspector and replay find and read a log by
// these names from a path a person gave, without a store.
import { basename, dirname, join } from 'node:path';
import { isSafeId } from '../core/safe-id.ts';
import { ConfigError } from '../errors/config-error.ts';
import { errorCode, pathError } from './path-errors.ts';
import { readLogFile } from './read-log-file.ts';

const extension = '.jsonl';

/** The session id of a log file path: its base name without `.jsonl`. */
export function sessionIdFromFile(file: string): string {
  const name = basename(file);
  if (!name.endsWith(extension) || name.length === extension.length) {
    throw new ConfigError(`"${file}" is not a session log (expected a <sessionId>${extension} file)`);
  }
  return name.slice(0, -extension.length);
}

/**
 * Where a session log file lives, for a CLI that is handed a path.
 *
 * @example
 * const { dir, sessionId } = sessionFileLocation('runs/abc.jsonl');
 * const session = await fileStore(dir).load(sessionId);
 */
export function sessionFileLocation(file: string): { dir: string; sessionId: string } {
  return { dir: dirname(file), sessionId: sessionIdFromFile(file) };
}

/** The log file of a session in a store's folder, `<dir>/<sessionId>.jsonl`: `sessionFileLocation` undone. */
export function sessionFilePath(dir: string, sessionId: string): string {
  return join(dir, `${sessionId}${extension}`);
}

/** The lock file beside a session's log, `<dir>/<sessionId>.lock`. */
export function sessionLockPath(dir: string, sessionId: string): string {
  return `${sessionFilePath(dir, sessionId).slice(0, -extension.length)}.lock`;
}

/** The sessions among a folder's file names, sorted by id. */
export function sessionIdsAmong(names: readonly string[]): string[] {
  return (
    names
      .filter((name) => name.endsWith(extension) && name.length > extension.length)
      .map((name) => name.slice(0, -extension.length))
      // A file the store did not write may have a name no store method accepts: it is not a session.
      .filter(isSafeId)
      .sort()
  );
}

/**
 * Reads a session log file as text. A missing file, a folder, a file that cannot be read, a path
 * through a file, a FIFO, socket or device, or a log over `sessionLogLimit` (256 MiB) is a `ConfigError`
 * naming the session and the path, never a raw `EISDIR` or `EACCES`, and never a read that blocks.
 */
export async function readSessionText(file: string, sessionId: string): Promise<string> {
  try {
    return await readLogFile(file, `read session "${sessionId}"`);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') {
      throw new ConfigError(`session "${sessionId}" does not exist (${file})`, { cause: error });
    }
    throw pathError(error, `read session "${sessionId}"`, file);
  }
}
