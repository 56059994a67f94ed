// Where `agentchart replay` reads a recording from: a session log file, or — with `--postgres URL` — a
// session a worker kept in PostgreSQL, named by its id (as `inspect --postgres` shows them). Both give the
// same events; `--export FILE` writes the stored session as the .jsonl a file store would have written, to
// commit beside the tests or check anywhere without the database.
import { writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { isSafeId } from '../core/safe-id.ts';
import { messageOf } from '../errors/describe-value.ts';
import { readRecordingTree } from '../replay/expect-replay.ts';
import { type RecordedTree, spawnedChildren } from '../replay/recorded-tree.ts';
import { assertSessionStarted } from '../session/log-text.ts';
import { errorCode } from '../session/path-errors.ts';
import { formatLogLine } from '../session/schema.ts';
import { sessionFilePath, sessionIdFromFile } from '../session/session-files.ts';
import type { LogEvent } from '../session/types.ts';
import { CliError } from './cli-error.ts';
import type { CliIo } from './terminal/io.ts';

/** `--postgres URL` reads the session from that store; `--export FILE` writes it out as a log file. */
export type ReplaySourceFlags = { postgres?: string; export?: string };

/**
 * The recording and how reports name it (the file's path, or `session ID in PostgreSQL`), with the logs of
 * the subagents it started (and theirs), and where each log was read, by session id.
 */
export type ReplaySource = RecordedTree & { label: string };

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
    // A session that started subagents replays as a tree: their logs are read from beside the file.
    return { label: path, ...(await readRecordingTree(path)) };
  }
  const { pgStore } = await import('../postgres/pg-store.ts');
  const store = pgStore(flags.postgres);
  const label = `session ${session} in PostgreSQL`;
  const tree: RecordedTree = { events: [], subagents: new Map(), files: new Map([[session, label]]) };
  try {
    tree.events = (await store.load(session)).events;
    assertSessionStarted(tree.events, 'there is nothing to replay', label);
    // The subagents a worker's agent started are sessions of the same store.
    const pending = spawnedChildren(tree.events).map((child) => child.childSessionId);
    for (let id = pending.shift(); id !== undefined; id = pending.shift()) {
      if (tree.files.has(id)) continue;
      const where = `subagent session ${id} in PostgreSQL`;
      // It names the exported file: an id from the store must be a plain file name.
      if (!isSafeId(id)) throw new CliError(`${where} has an id that names no log file`);
      const { events } = await store.load(id);
      assertSessionStarted(events, 'a tree replays from all its logs', where);
      tree.subagents.set(id, events);
      tree.files.set(id, where);
      pending.push(...spawnedChildren(events).map((child) => child.childSessionId));
    }
  } finally {
    await store.close();
  }
  if (flags.export !== undefined) {
    const file = resolve(io.cwd, flags.export);
    await exportLog(file, tree.events);
    // Beside it, as the file store keeps them, so the exported tree replays from the file alone.
    for (const [id, events] of tree.subagents) await exportLog(sessionFilePath(dirname(file), id), events);
  }
  return { label, ...tree };
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
