import { z } from 'zod/v4';
import { LogFormatError } from '../errors/log-format-error.ts';
import { providerErrorKinds } from '../errors/provider-error.ts';
import { modelStopReasons } from '../providers/types.ts';
import { callResultProblem } from './log-check.ts';
import {
  hookPoints,
  LOG_FORMAT_VERSION,
  type LogEvent,
  type LogEventData,
  type LogEventType,
} from './types.ts';

const count = z.number().int().nonnegative();
const usage = z.object({
  inputTokens: count,
  outputTokens: count,
  cacheReadTokens: count,
  cacheWriteTokens: count,
});
const inboxChannel = z.enum(['followup', 'steer', 'inject']);
/** A classified provider failure as it travels in events and the log. */
export const providerErrorDataSchema = z.object({
  kind: z.enum(providerErrorKinds),
  message: z.string(),
  retryable: z.boolean(),
  retryAfterMs: z.number().nonnegative().optional(),
  status: z.number().int().optional(),
});
// Required, and never `undefined`: JSON leaves an undefined field out, and a log without it cannot load.
const present = z.unknown().refine((value) => value !== undefined, 'expected a value, received undefined');
const toolCall = z.object({ id: z.string(), name: z.string(), input: present });
const providerPart = z.object({ provider: z.string(), type: z.string(), data: present });
const offset = z.number().int().nonnegative();
const citation = z.object({
  source: z.enum(['url', 'document', 'file']),
  url: z.string().optional(),
  title: z.string().optional(),
  citedText: z.string().optional(),
  fileId: z.string().optional(),
  start: offset.optional(),
  end: offset.optional(),
});
const modelStopReason = z.enum([...modelStopReasons, 'interrupted']);
const toolOutcome = z.enum([
  'ok',
  'error',
  'denied',
  'aborted',
  'timeout',
  'aborted_before_start',
  'not_started',
  'unknown',
]);
const cancelCause = z.enum(['user', 'parent', 'disposed', 'hook']);
const stopReason = z.enum([
  'completed',
  'max_steps',
  'unknown_tool_limit',
  'canceled',
  'model_error',
  'blocked',
  'max_tokens',
  'interrupted',
]);

/**
 * The data schema of every event type. The `satisfies` clause makes the compiler check that each
 * schema produces exactly the `LogEventData` shape and that no event type is missing.
 */
export const logEventDataSchemas = {
  'session.start': z.object({
    agentId: z.string(),
    parent: z.string().optional(),
    forkOf: z.object({ sessionId: z.string(), atSeq: count }).optional(),
    config: z.record(z.string(), z.unknown()),
  }),
  'inbox.queued': z.object({ id: z.string(), channel: inboxChannel, message: z.string() }),
  'inbox.claimed': z.object({ ids: z.array(z.string()) }),
  'inbox.cleared': z.object({ ids: z.array(z.string()) }),
  'turn.start': z.record(z.string(), z.never()),
  'step.start': z.object({ model: z.string(), toolNames: z.array(z.string()), systemHash: z.string() }),
  'user.message': z.object({ channel: inboxChannel, content: z.string(), inboxId: z.string().optional() }),
  'assistant.message': z.object({
    text: z.string(),
    toolCalls: z.array(toolCall),
    usage,
    stopReason: modelStopReason,
    interrupted: z.boolean().optional(),
    providerParts: z.array(providerPart).optional(),
    citations: z.array(citation).optional(),
    notes: z.array(z.string()).optional(),
  }),
  'assistant.attempt': z.object({
    error: providerErrorDataSchema,
    attempt: count,
    retryInMs: z.number().nonnegative().optional(),
  }),
  'tool.call': z.object({ callId: z.string(), name: z.string(), input: present }),
  'hook.decided': z.object({
    point: z.enum(hookPoints),
    hook: z.string(),
    outcome: z.enum(['pass', 'modify', 'allow', 'ask', 'deny', 'block', 'error', 'timeout', 'invalid']),
    reason: z.string().optional(),
    callId: z.string().optional(),
    input: z.unknown().optional(),
    content: z.string().optional(),
    message: z.string().optional(),
    inboxId: z.string().optional(),
    attempt: z.number().int().positive().optional(),
    delayMs: z.number().int().nonnegative().optional(),
    system: z.string().optional(),
    tools: z.array(z.string()).optional(),
    model: z.string().optional(),
    systemMessage: z.string().optional(),
  }),
  'tool.started': z.object({ callId: z.string() }),
  'approval.asked': z.object({ callId: z.string() }),
  'approval.decided': z.object({
    callId: z.string(),
    outcome: z.enum(['allow', 'allow_session', 'deny']),
    by: z.enum(['rule', 'mode', 'session', 'host', 'user', 'headless']),
    reason: z.string().optional(),
    rule: z.string().optional(),
    mode: z.string().optional(),
  }),
  'tool.result': z.object({
    callId: z.string(),
    outcome: toolOutcome,
    content: z.string(),
    error: z.string().optional(),
  }),
  'step.end': z.object({ toolResults: count }),
  'turn.end': z.object({
    reason: stopReason,
    usage,
    cause: cancelCause.optional(),
    error: providerErrorDataSchema.optional(),
    vetoReason: z.string().optional(),
  }),
  compaction: z.object({
    replaces: z
      .tuple([count, count])
      .refine(([from, to]) => from <= to, 'replaces must be [from, to] with from <= to'),
    summary: z.string(),
    tokensBefore: count,
    trigger: z.enum(['auto', 'manual', 'overflow']),
    usage: usage.optional(),
  }),
  'agent.spawned': z.object({ childSessionId: z.string(), callId: z.string() }),
  'mcp.status': z.object({
    server: z.string(),
    state: z.enum(['connected', 'disconnected', 'reconnecting', 'failed', 'closed']),
    error: z.string().optional(),
  }),
  'mcp.tools': z.object({
    server: z.string(),
    tools: z.array(
      z.object({
        name: z.string(),
        tool: z.string(),
        description: z.string(),
        inputSchema: z.record(z.string(), z.unknown()),
        access: z.enum(['read', 'write']),
      }),
    ),
  }),
  'session.end': z.object({ reason: z.literal('disposed') }),
  'session.resumed': z.object({ config: z.record(z.string(), z.unknown()) }),
  'cancel.requested': z.object({ by: cancelCause, clearInbox: z.boolean().optional() }),
  environment: z.object({ text: z.string() }),
  'mode.changed': z.object({
    from: z.string(),
    to: z.string(),
    by: z.enum(['plan', 'host', 'user']),
    plan: z.string().optional(),
    callId: z.string().optional(),
  }),
} satisfies { [K in LogEventType]: z.ZodType<LogEventData[K]> };

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

/** Whether `type` names an event type of this format version. */
export function isEventType(type: unknown): type is LogEventType {
  return typeof type === 'string' && Object.hasOwn(logEventDataSchemas, type);
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
