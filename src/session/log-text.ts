import { readFile } from 'node:fs/promises';
import { LogFormatError } from '../errors/log-format-error.ts';
import { parseLogLine, validateSequence } from './schema.ts';
import type { LogEvent } from './types.ts';

/** A parsed log file: its events, and, when its last write was torn, how much of the file to keep. */
export type ParsedLogText = { events: LogEvent[]; torn?: { keepBytes: number; warning: string } };

/**
 * Parses the text of a session log file, naming `file` and the line in every `LogFormatError`.
 *
 * Only one kind of damage is repaired: a last line without its newline (a write cut off by a crash)
 * that follows complete lines forming a valid session (starting with `session.start`, `seq` contiguous).
 * It is dropped, and `torn.keepBytes` is the length of the good prefix, which the caller may truncate the
 * file to. Anything else is refused and nothing is to be cut: a complete line that does not parse is
 * corruption, and a file whose lines are not a session (notes, another format, a torn first line) is not
 * a session log.
 */
export function parseLogText(text: string, file: string): ParsedLogText {
  const lines = text.split('\n');
  // A complete file ends with "\n", so the last piece is "" unless the last write was torn.
  const tail = lines.pop() ?? '';
  const events = lines.map((line, index) => withFile(file, () => parseLogLine(line, index + 1)));
  if (tail !== '' && events[0]?.type !== 'session.start') {
    throw new LogFormatError(
      `${file}: line ${lines.length + 1} has no newline and no "session.start" comes before it: ` +
        'not a session log, or one whose first write was torn; the file was left as it is',
    );
  }
  withFile(file, () => validateSequence(events));
  if (tail === '') return { events };
  const keepBytes = Buffer.byteLength(text) - Buffer.byteLength(tail);
  const warning =
    `${file}: line ${lines.length + 1} was torn (incomplete last write, probably a crash); ` +
    `dropped it and truncated the file to ${keepBytes} bytes`;
  return { events, torn: { keepBytes, warning } };
}

/**
 * Reads a whole session log file: every line parsed and checked as `parseLogText` does (the one parse
 * path), for callers that want the log as written, such as tests and tools reading a finished session.
 * A torn last line is refused here rather than dropped, since nothing may be cut from a file read whole.
 *
 * @example const events = await readLog(join(sessions, 's1.jsonl'));
 */
export async function readLog(file: string): Promise<LogEvent[]> {
  const { events, torn } = parseLogText(await readFile(file, 'utf8'), file);
  if (torn)
    throw new LogFormatError(tornLineLeft(torn.warning, 'readLog reads a log whole and cuts nothing'));
  return events;
}

/** The warning of a torn last line that was read past but left on disk. */
export function tornLineLeft(warning: string, why: string): string {
  return warning.replace(/ and truncated the file.*$/, ` (${why})`);
}

/**
 * Refuses a log with no events: a session created by a process that stopped before `session.start` was
 * written. Nothing of the agent (its model, tools, system prompt, workspace) is on disk, so it can be
 * neither resumed nor repaired — a repair would have to invent the agent's configuration.
 */
export function assertSessionStarted(events: readonly LogEvent[], remedy: string, file?: string): void {
  if (events.length > 0) return;
  throw new LogFormatError(
    `${file ? `${file}: ` : ''}the log is empty: the session was created but the process stopped before ` +
      '"session.start" was written, so nothing of the agent (model, tools, system prompt) was recorded; ' +
      remedy,
  );
}

function withFile<T>(file: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (!LogFormatError.isInstance(error)) throw error;
    throw new LogFormatError(`${file}: ${error.message}`, { cause: error });
  }
}
