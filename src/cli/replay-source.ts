// Where `agentchart replay` reads a recording from: a session log file, or — with `--postgres URL` — a
// session a worker kept in PostgreSQL, named by its id (as `inspect --postgres` shows them). Both give the
// same events; `--export FILE` writes the stored session as the .jsonl a file store would have written, to
// commit beside the tests or check anywhere without the database.
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { messageOf } from '../errors/describe-value.ts';
import { readRecording } from '../replay/expect-replay.ts';
import { sessionIdFromFile } from '../session/file-store.ts';
import { assertSessionStarted } from '../session/log-text.ts';
import { errorCode } from '../session/path-errors.ts';
import { formatLogLine } from '../session/schema.ts';
import type { LogEvent } from '../session/types.ts';
import { CliError, type CliIo } from './io.ts';

/** `--postgres URL` reads the session from that store; `--export FILE` writes it out as a log file. */
export type ReplaySourceFlags = { postgres?: string; export?: string };

/** The recording and how reports name it: the file's path, or `session ID in PostgreSQL`. */
export type ReplaySource = { label: string; events: LogEvent[] };

/**
 * Reads `session` (a log file; with `--postgres`, a session id of that store, read-only: no lease is taken,
 * a worker may still be writing it). A missing session, an unreachable database or a damaged log is a
 * clear error.
 */
export async function readReplaySource(
  session: string,
  flags: ReplaySourceFlags,
  io: CliIo,
): Promise<ReplaySource> {
  if (flags.postgres === undefined) {
    if (flags.export !== undefined) throw new CliError('--export is for a session read with --postgres');
    const path = resolve(io.cwd, session);
    // The same refusal `replay` gives a path that is no session log (`/etc/passwd`, a folder).
    sessionIdFromFile(path);
    return { label: path, events: await readRecording(path) };
  }
  const { pgStore } = await import('../postgres/pg-store.ts');
  const store = pgStore(flags.postgres);
  let events: LogEvent[];
  try {
    ({ events } = await store.load(session));
  } finally {
    await store.close();
  }
  const label = `session ${session} in PostgreSQL`;
  assertSessionStarted(events, 'there is nothing to replay', label);
  if (flags.export !== undefined) await exportLog(resolve(io.cwd, flags.export), events);
  return { label, events };
}

/** Writes a new log file; one that exists is never overwritten (it may be another session's). */
async function exportLog(path: string, events: readonly LogEvent[]): Promise<void> {
  try {
    await writeFile(path, events.map(formatLogLine).join(''), { flag: 'wx' });
  } catch (error) {
    const reason = errorCode(error) === 'EEXIST' ? 'exists already: give a new file' : messageOf(error);
    throw new CliError(`--export ${path} ${reason}`, { cause: error });
  }
}
