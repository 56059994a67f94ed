// What the enqueuer, the workers and the followers of a BullMQ job agree on: the data of one task, what
// a finished task returns, the progress a worker reports, and where cancel requests travel.
import { z } from 'zod/v4';
import type { Usage } from '../providers/types.ts';
import type { DeniedCall } from '../runtime/turn-result.ts';
import { stopReasonSchema, supervisionSpecSchema } from '../session/event-data-schemas.ts';
import type { RestartReason, StopReason } from '../session/types.ts';
import { traceParentPattern } from '../telemetry/trace-parent.ts';

/** The data of one queued task. The BullMQ job id is the task's session id. */
export const taskDataSchema = z.object({
  prompt: z.string(),
  instructions: z.string().optional(),
  /** The task's place in the job it was enqueued with (what `runJob` calls `index`). */
  index: z.number().int().nonnegative(),
  /** How the task is restarted when it fails, its defaults filled in (absent: never). */
  supervision: supervisionSpecSchema.optional(),
  /** The ids of the tasks (jobs) this one waits for; it is enqueued parked until they have all ended. */
  dependsOn: z.array(z.string()).optional(),
  /** The ids of the tasks that wait for this one: a worker looks at them when this one has ended. */
  dependents: z.array(z.string()).optional(),
  /** What a dependency that did not complete does to this task (absent: `'skip'`, it ends `dependency_failed`). */
  onDependencyFailure: z.enum(['skip', 'run']).optional(),
  /** The W3C traceparent of the job's span, which the task's agent continues (docs/telemetry.md). */
  traceParent: z.string().regex(traceParentPattern).optional(),
});
export type TaskData = z.infer<typeof taskDataSchema>;

/**
 * What a worker returns for a task: its job's `returnvalue`. `error` is the message of the last turn's
 * `RunResult.error`; `denied` its denied calls (a worker of an older version returned none). A task that
 * never ran because a dependency did not complete is `dependency_failed`, its `error` naming the dependency.
 */
export type TaskResult = {
  reason: StopReason | 'dependency_failed';
  text: string;
  usage: Usage;
  error?: string;
  denied: DeniedCall[];
  /** How many times its supervision restarted it, across every worker (absent: none). */
  restarts?: number;
};

const count = z.number().nonnegative();
/** A job's `returnvalue` as read back from Redis: checked before a follower trusts it. */
export const taskResultSchema = z.object({
  reason: z.union([stopReasonSchema, z.literal('dependency_failed')]),
  text: z.string(),
  usage: z.object({
    inputTokens: count,
    outputTokens: count,
    cacheReadTokens: count,
    cacheWriteTokens: count,
  }),
  error: z.string().optional(),
  denied: z
    .array(
      z.object({
        callId: z.string(),
        tool: z.string(),
        input: z.unknown(),
        by: z.enum(['rule', 'mode', 'session', 'host', 'user', 'headless', 'hook']),
        reason: z.string(),
        hook: z.string().optional(),
      }),
    )
    .default([]),
  restarts: z.number().int().positive().optional(),
}) satisfies z.ZodType<TaskResult, unknown>;

/**
 * What a worker reports through `job.updateProgress`: the task's agent is live (`task.started`), or its
 * supervision restarts it (`task.restarted`: the `attempt`-th restart, after `backoffMs`). A job keeps only
 * its latest progress: a follower that reads it now and then may see a later one first.
 */
export type TaskProgress =
  | { type: 'task.started'; sessionId: string; resumed: boolean; worker: string }
  | {
      type: 'task.restarted';
      sessionId: string;
      worker: string;
      attempt: number;
      reason: RestartReason;
      error?: string;
      backoffMs: number;
    };

/** A job's progress as read back from Redis: checked before a follower trusts it. */
export const taskProgressSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('task.started'),
    sessionId: z.string(),
    resumed: z.boolean(),
    worker: z.string(),
  }),
  z.object({
    type: z.literal('task.restarted'),
    sessionId: z.string(),
    worker: z.string(),
    attempt: z.number().int().positive(),
    reason: z.enum(['model_error', 'crashed']),
    error: z.string().optional(),
    backoffMs: z.number().nonnegative(),
  }),
]) satisfies z.ZodType<TaskProgress, unknown>;

// Session ids (1-128 of letters, digits, `.`, `_`, `-`) that BullMQ also takes as a custom job id: not
// a plain integer, which it reserves for its own ids.
const taskIdPattern = /^[A-Za-z0-9._-]{1,128}$/;

/** Refuses an id that cannot be both a session id and a BullMQ job id, saying why. */
export function taskIdProblem(id: string): string | undefined {
  if (!taskIdPattern.test(id)) return 'must be 1-128 letters, digits, ".", "_" or "-"';
  if (/^\d+$/.test(id)) return 'must not be a plain number (BullMQ keeps those for its own job ids)';
  return undefined;
}

/** A queue's name and key prefix: a `Queue`, or what a worker was started with. */
export type QueuePlace = { name: string; opts: { prefix?: string | undefined } };

/** The pub/sub channel that carries cancel requests for a queue's tasks to every worker. */
export function cancelChannel(queue: QueuePlace): string {
  return `${queue.opts.prefix ?? 'bull'}:${queue.name}:agentchart:cancel`;
}

/** The key that marks a task as cancelled, for a worker that picks it up after the request was sent. */
export function cancelKey(queue: QueuePlace, taskId: string): string {
  return `${cancelChannel(queue)}:${taskId}`;
}
