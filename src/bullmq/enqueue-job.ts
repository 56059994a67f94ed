import type { JobsOptions, Queue } from 'bullmq';
import { z } from 'zod/v4';
import { parseHostValue } from '../core/host-schema.ts';
import { ConfigError } from '../errors/config-error.ts';
import { messageOf } from '../errors/describe-value.ts';
import { taskGraph } from '../runtime/jobs/task-graph.ts';
import { startQueuedJobSpan } from '../telemetry/system-tracing.ts';
import { type TelemetryOptions, telemetryOptionSchema } from '../telemetry/telemetry-options.ts';
import {
  type SupervisionPolicy,
  supervisionPolicySchema,
  supervisionSpecOf,
} from '../tools/supervision-option.ts';
import { clientFor } from './redis-client.ts';
import { parkedDelayMs } from './task-dependencies.ts';
import { cancelChannel, cancelKey, type TaskData, taskIdProblem } from './task-queue.ts';

/**
 * One task to put on the queue: the prompt, optional instructions, optionally its session id, and how it
 * is restarted when it fails (default: the job's `supervision`).
 */
export type QueuedTask = {
  prompt: string;
  instructions?: string;
  id?: string;
  supervision?: SupervisionPolicy;
  /**
   * The ids of tasks of this job that must end before this one starts: their results are added to its
   * prompt, as `runJob` does. One that does not complete ends this task `dependency_failed`, unless the
   * job's `onDependencyFailure` is `'run'`.
   */
  dependsOn?: string[];
};

export type EnqueueOptions = {
  tasks: readonly QueuedTask[];
  /**
   * Names the job: a task without `id` gets `<name>-<index>`, so enqueueing the same tasks again adds
   * nothing new. Required when a task has no id.
   */
  name?: string;
  /** BullMQ attempts per task (default 5, exponential backoff from 1 s): a retried task resumes. */
  attempts?: number;
  /**
   * How every task is restarted when it fails, unless it says otherwise (default: never; see
   * `SupervisionPolicy`). A supervised task's restarts are counted in its log and bounded across workers:
   * a turn ending `model_error`, and a worker that died or failed while running it, each spend one; when
   * they are spent the failure is the task's result. An unsupervised task is resumed however often BullMQ
   * retries it (`attempts`).
   */
  supervision?: SupervisionPolicy;
  /** What a dependency that did not complete does to its dependents: `'skip'` them (default) or `'run'` them. */
  onDependencyFailure?: 'skip' | 'run';
  /**
   * OpenTelemetry (docs/telemetry.md): with a tracer provider set (this one's, else the global one), the
   * job gets a span (a child of the host's active span) whose traceparent every task carries in its data,
   * so the workers' agents continue the same trace. `false`: no span.
   */
  telemetry?: TelemetryOptions;
};

const enqueueSchema = z.object({
  tasks: z
    .array(
      z
        .object({
          prompt: z.string(),
          instructions: z.string().optional(),
          id: z.string().optional(),
          supervision: supervisionPolicySchema.optional(),
          dependsOn: z.array(z.string()).optional(),
        })
        .strict(),
    )
    .min(1),
  name: z.string().optional(),
  attempts: z.number().int().positive().optional(),
  supervision: supervisionPolicySchema.optional(),
  onDependencyFailure: z.enum(['skip', 'run']).optional(),
  telemetry: telemetryOptionSchema.optional(),
});

/**
 * Puts one BullMQ job per task on `queue`. The job id is the task's session id, so enqueueing a task
 * again while its job exists adds nothing (BullMQ keeps one job per id), and a worker that takes a task
 * whose session exists resumes it. Finished jobs are kept (`removeOnComplete: false`): removing one would
 * let the same id run again. Returns the ids in task order.
 *
 * Tasks may form a graph (`dependsOn`), checked before any job is added (a `ConfigError` for an unknown
 * id, a cycle, ...; see `runJob`). A task with dependencies is added parked (a delayed job) and a worker
 * promotes it once they have all ended; it reads their results (see `startWorker`).
 *
 * @example
 * const queue = new Queue('agentchart', { connection: redisFromUrl('redis://127.0.0.1:6379') });
 * const { ids } = await enqueueJob(queue, { name: 'fix-tests', tasks: [{ prompt: 'Fix a.ts' }] });
 */
export async function enqueueJob(queue: Queue, options: EnqueueOptions): Promise<{ ids: string[] }> {
  const {
    tasks,
    name,
    attempts = 5,
    supervision,
    onDependencyFailure,
    telemetry,
  } = parseHostValue('enqueueJob', enqueueSchema, options);
  const ids = tasks.map((task, index) => {
    const id = task.id ?? (name === undefined ? undefined : `${name}-${index}`);
    if (id === undefined)
      throw new ConfigError(`enqueueJob: task ${index} has no id; give it one, or name the job`);
    const problem = taskIdProblem(id);
    if (problem) throw new ConfigError(`enqueueJob: task ${index}'s id "${id}" ${problem}`);
    return id;
  });
  if (new Set(ids).size !== ids.length) throw new ConfigError('enqueueJob: two tasks have the same id');
  const graph = taskGraph(
    'enqueueJob',
    tasks.map((task, index) => ({ id: ids[index], dependsOn: task.dependsOn })),
  );
  const jobOptions: JobsOptions = {
    attempts,
    backoff: { type: 'exponential', delay: 1000 },
    removeOnComplete: false,
    removeOnFail: false,
  };
  const span = await startQueuedJobSpan('enqueueJob', telemetry, {
    'agentchart.job.tasks': tasks.length,
    ...(name !== undefined ? { 'agentchart.job.name': name } : {}),
  });
  const added = queue.addBulk(
    tasks.map((task, index) => {
      const data: TaskData = { prompt: task.prompt, index };
      if (span) data.traceParent = span.traceParent;
      if (task.instructions !== undefined) data.instructions = task.instructions;
      const spec = supervisionSpecOf(task.supervision ?? supervision);
      if (spec) data.supervision = spec;
      const waitsFor = graph.dependencies[index]!;
      const waitedBy = graph.dependents[index]!;
      if (waitedBy.length > 0) data.dependents = waitedBy.map((on) => ids[on]!);
      const opts: JobsOptions = { ...jobOptions, jobId: ids[index]! };
      if (waitsFor.length > 0) {
        data.dependsOn = waitsFor.map((on) => ids[on]!);
        if (onDependencyFailure) data.onDependencyFailure = onDependencyFailure;
        opts.delay = parkedDelayMs;
      }
      return { name: 'task', data, opts };
    }),
  );
  await added.then(
    () => span?.end(),
    (error: unknown) => {
      span?.end(messageOf(error));
      throw error;
    },
  );
  return { ids };
}

/**
 * Cancels a task wherever it is: a waiting one is removed from the queue (`'removed'`); a running one is
 * flagged and every worker is told, and the one running it cancels its agent, whose turn ends `canceled`
 * (`'signalled'`). The flag stays (a day), so a worker that picks the task up later ends it at once.
 */
export async function cancelTask(queue: Queue, taskId: string): Promise<'removed' | 'signalled'> {
  const { client, owned } = clientFor(queue.opts.connection as never);
  try {
    await client.set(cancelKey(queue, taskId), '1', 'EX', 86_400);
    const job = await queue.getJob(taskId);
    const state = job ? await job.getState() : undefined;
    if (job && (state === 'waiting' || state === 'delayed' || state === 'prioritized')) {
      // Removal fails if a worker took the job meanwhile; the flag and the message below cover that.
      if (
        await job.remove().then(
          () => true,
          () => false,
        )
      )
        return 'removed';
    }
    await client.publish(cancelChannel(queue), taskId);
    return 'signalled';
  } finally {
    if (owned) await client.quit();
  }
}
