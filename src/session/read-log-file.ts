import { readRegularText } from '../core/read-limited.ts';
import { ConfigError } from '../errors/config-error.ts';
import { pathError } from './path-errors.ts';

/**
 * The largest session log read: 256 MiB. Loaded, a log's events take about two and a half times its size
 * in memory (a 256 MiB log: 1.7 s and 650 MB here); a JavaScript string cannot hold more than about 512 MiB
 * at all, which would end the read with a bare RangeError.
 */
export const sessionLogLimit = 256 * 1024 * 1024;

/**
 * Reads a session log as text, as a regular file only (symbolic links followed) and never more than
 * `sessionLogLimit`. A folder, a FIFO, a socket, a device or a log over the limit is a `ConfigError`
 * (`cannot <action>: <file> is a named pipe (FIFO), not a file`); operating-system errors (ENOENT,
 * EACCES, ...) reject as they are, for the caller to word.
 */
export async function readLogFile(file: string, action: string): Promise<string> {
  const read = await readRegularText(file, sessionLogLimit);
  if ('text' in read) return read.text;
  // A folder is worded as every store method words one (pathError's EISDIR).
  if (read.isDirectory) throw pathError({ code: 'EISDIR' }, action, file);
  throw new ConfigError(`cannot ${action}: ${file} ${read.refused}`);
}
