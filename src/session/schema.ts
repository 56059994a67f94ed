// Reading and writing one line of the session log: the envelope every line shares, the migrations that
// bring an older format up to this build's, and the checks every reader applies to a line and to a whole
// log. The data each event type carries is checked against event-data-schemas.ts.
import { z } from 'zod/v4';
import { LogFormatError } from '../errors/log-format-error.ts';
import { isEventType, logEventDataSchemas } from './event-data-schemas.ts';
import { callResultProblem } from './log-check.ts';
import { LOG_FORMAT_VERSION, type LogEvent } from './types.ts';

const count = z.number().int().nonnegative();

/** The envelope every line shares; `type` and `data` are checked against the per-type schemas after it. */
export const logEnvelopeSchema = z.object({
  v: z.number().int().positive(),
  seq: count,
  ts: z.number(),
  type: z.string(),
  turn: count.optional(),
  step: count.optional(),
  data: z.record(z.string(), z.unknown()),
});

/** A raw event as read from storage, possibly in an older format version. */
type RawEvent = Record<string, unknown> & { v: number };

/**
 * Upgrades from format `N` to `N + 1`, keyed by `N`. v1 is the first format, so there are none yet;
 * a future v2 adds `1: (event) => ...` here and bumps `LOG_FORMAT_VERSION`.
 */
const migrations: Readonly<Record<number, (event: RawEvent) => RawEvent>> = {};

/** Brings an event written by an older build up to `LOG_FORMAT_VERSION`, one version at a time. */
export function migrate(event: RawEvent): RawEvent {
  let current = event;
  while (current.v < LOG_FORMAT_VERSION) {
    const step = migrations[current.v];
    if (!step) {
      throw new LogFormatError(`format v${current.v} is not supported (no migration to v${current.v + 1})`);
    }
    current = step(current);
  }
  return current;
}

/**
 * Checks one already-parsed value as a log event: version (refusing newer ones), migration, envelope
 * and the data of its type. `where` prefixes error messages, e.g. `"line 7"`. Returns the value itself
 * (not zod's copy) so key order and unknown extra fields survive a read-write round trip.
 */
export function parseLogEvent(value: unknown, where: string): LogEvent {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new LogFormatError(
      `${where}: expected a JSON object, got ${Array.isArray(value) ? 'an array' : typeof value}`,
    );
  }
  const raw = value as Record<string, unknown>;
  const v = raw.v;
  if (typeof v !== 'number' || !Number.isInteger(v)) {
    throw new LogFormatError(`${where}: missing or invalid format version "v"`);
  }
  if (v > LOG_FORMAT_VERSION) {
    throw new LogFormatError(
      `${where}: written by a newer agentchart (format v${v}); this build reads up to v${LOG_FORMAT_VERSION}`,
    );
  }
  let migrated: RawEvent;
  try {
    migrated = migrate({ ...raw, v });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new LogFormatError(`${where}: ${message}`, { cause: error });
  }
  const envelope = logEnvelopeSchema.safeParse(migrated);
  if (!envelope.success) {
    throw new LogFormatError(`${where}: bad event envelope\n${z.prettifyError(envelope.error)}`);
  }
  const type = envelope.data.type;
  if (!isEventType(type)) throw new LogFormatError(`${where}: unknown event type "${type}"`);
  const data = logEventDataSchemas[type].safeParse(migrated.data);
  if (!data.success) {
    throw new LogFormatError(`${where}: bad data for "${type}"\n${z.prettifyError(data.error)}`);
  }
  return migrated as LogEvent;
}

/**
 * Parses one JSONL line of a session log. Throws `LogFormatError` naming the line for bad JSON, an
 * unknown type, bad data, or a format version newer than this build reads.
 */
export function parseLogLine(line: string, lineNumber: number): LogEvent {
  const where = `line ${lineNumber}`;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new LogFormatError(`${where}: not valid JSON (${message})`, { cause: error });
  }
  return parseLogEvent(value, where);
}

/** Serialises an event as one JSONL line, newline included. Validation is `checkWritable`'s job. */
export function formatLogLine(event: LogEvent): string {
  return `${JSON.stringify(event)}\n`;
}

/**
 * Checks the shape of a whole log: `seq` contiguous from 0, the first event a `session.start`, and every
 * tool result answering one call that was made, once (`callResultProblem`). An empty log is valid (a
 * session that was created but has nothing written yet). Every reader of a log goes through here.
 */
export function validateSequence(events: readonly LogEvent[]): void {
  const first = events[0];
  if (first && first.type !== 'session.start') {
    throw new LogFormatError(`the first event must be "session.start", found "${first.type}"`);
  }
  for (let index = 0; index < events.length; index++) {
    const seq = events[index]?.seq;
    if (seq !== index) {
      throw new LogFormatError(`seq must be contiguous from 0: event ${index} has seq ${seq}`);
    }
  }
  const damage = callResultProblem(events);
  if (damage !== undefined) throw new LogFormatError(damage);
}

/**
 * Checks what a store's `load` handed back, for stores written by others: a plain array of events, each
 * one valid, `seq` contiguous from 0. The built-in stores already parse what they read; a custom store
 * that returns garbage is refused here, before repair or an agent sees it.
 */
export function parseLoadedEvents(loaded: unknown): LogEvent[] {
  const events = (loaded as { events?: unknown } | null | undefined)?.events;
  if (!Array.isArray(events)) throw new LogFormatError("the store's load() did not return { events: [...] }");
  const parsed = events.map((event, index) => parseLogEvent(event, `event ${index}`));
  validateSequence(parsed);
  return parsed;
}
