// The data every log event type carries, as zod schemas: what a reader checks each line's `data` against
// and what the writer's check (check-writable.ts) holds an event to before a store is given it. The
// `satisfies` clause keeps it equal to `LogEventData` in types.ts, type by type.
import { z } from 'zod/v4';
import { providerErrorKinds } from '../errors/provider-error.ts';
import { modelStopReasons } from '../providers/types.ts';
import { hookPoints, type LogEventData, type LogEventType } from './types.ts';

const count = z.number().int().nonnegative();
const usage = z.object({
  inputTokens: count,
  outputTokens: count,
  cacheReadTokens: count,
  cacheWriteTokens: count,
});
const inboxChannel = z.enum(['followup', 'steer', 'inject']);
const mailKind = z.enum(['message', 'result']);
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
/** Why a turn ended, as `turn.end` logs it (a BullMQ task's result carries the same). */
export const stopReasonSchema = z.enum([
  'completed',
  'max_steps',
  'unknown_tool_limit',
  'canceled',
  'model_error',
  'blocked',
  'max_tokens',
  'interrupted',
  'invalid_output',
]);
/** How a supervised child or task restarts (`SupervisionSpec`). */
export const supervisionSpecSchema = z.object({
  restart: z.literal('on-failure'),
  maxRestarts: count,
  backoffMs: count,
});
const restartReason = z.enum(['model_error', 'crashed']);
/** What a typed run asks of its turn's final answer (`OutputSpec`). */
const outputSpec = z.object({
  schema: z.record(z.string(), z.unknown()),
  maxRetries: count,
});

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
  'inbox.queued': z.object({
    id: z.string(),
    channel: inboxChannel,
    message: z.string(),
    from: z.string().optional(),
    kind: mailKind.optional(),
    output: outputSpec.optional(),
  }),
  'inbox.claimed': z.object({ ids: z.array(z.string()) }),
  'inbox.cleared': z.object({ ids: z.array(z.string()) }),
  'turn.start': z.object({ output: outputSpec.optional() }),
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
  'output.checked': z.object({
    valid: z.boolean(),
    attempt: z.number().int().positive(),
    error: z.string().optional(),
  }),
  'turn.end': z.object({
    reason: stopReasonSchema,
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
  'agent.spawned': z.object({
    childSessionId: z.string(),
    callId: z.string(),
    background: z.boolean().optional(),
    wait: z.boolean().optional(),
    output: outputSpec.optional(),
    supervision: supervisionSpecSchema.optional(),
  }),
  'agent.restarted': z.object({
    childSessionId: z.string(),
    attempt: count,
    reason: restartReason,
    error: z.string().optional(),
    backoffMs: count,
  }),
  'session.restarted': z.object({ attempt: count, reason: restartReason, error: z.string().optional() }),
  'message.sent': z.object({
    id: z.string(),
    to: z.string(),
    text: z.string(),
    kind: mailKind.optional(),
    reason: stopReasonSchema.optional(),
    by: z.literal('host').optional(),
  }),
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
  environment: z.object({ text: z.string(), placement: z.literal('message').optional() }),
  'mode.changed': z.object({
    from: z.string(),
    to: z.string(),
    by: z.enum(['plan', 'host', 'user']),
    plan: z.string().optional(),
    callId: z.string().optional(),
  }),
} satisfies { [K in LogEventType]: z.ZodType<LogEventData[K]> };

/** Whether `type` names an event type of this format version. */
export function isEventType(type: unknown): type is LogEventType {
  return typeof type === 'string' && Object.hasOwn(logEventDataSchemas, type);
}
