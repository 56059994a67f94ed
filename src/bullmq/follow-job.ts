import type { Job, Queue } from 'bullmq';
import { emptyUsage } from '../providers/types.ts';
import type { JobProgress, JobTaskResult, ProgressBody } from '../runtime/jobs/job-types.ts';
import { type TaskProgress, taskProgressSchema, taskResultSchema } from './task-queue.ts';

export type FollowOptions = {
  /** Told when a task's agent is live and when a task ends, as `runJob`'s `onProgress` is. */
  onProgress?: (progress: JobProgress) => void;
  /** Stops following (the tasks go on on their workers); the promise then rejects with its reason. */
  signal?: AbortSignal;
  /** How often the jobs' states are read (default 200 ms). */
  intervalMs?: number;
};

/**
 * Follows the tasks `ids` (from `enqueueJob`) until every one has ended, and resolves with one result per
 * task in that order — the shape `runJob` gives. A supervised task's restarts are told as `task.restarted`
 * (two restarts between reads are told as the later one). A task whose attempts all failed is `failed` with BullMQ's
 * reason; one removed by `cancelTask` before it ran is `canceled`. The jobs' states are read from Redis
 * at an interval, so following survives a Redis restart and can start after the tasks did.
 */
export async function followJob(
  queue: Queue,
  ids: readonly string[],
  options: FollowOptions = {},
): Promise<JobTaskResult[]> {
  const results = new Map<number, JobTaskResult>();
  const started = new Set<number>();
  /** The last restart told of, per task: a later one read from the job's progress is news. */
  const restarts = new Map<number, number>();
  const total = ids.length;
  const emit = (body: ProgressBody) => {
    const running = [...started].filter((index) => !results.has(index)).length;
    options.onProgress?.({ ...body, running, finished: results.size, total, waiting: 0 } as JobProgress);
  };
  while (results.size < total) {
    options.signal?.throwIfAborted();
    const jobs = await Promise.all(
      ids.map((id, index) => (results.has(index) ? undefined : queue.getJob(id))),
    );
    for (const [index, id] of ids.entries()) {
      if (results.has(index)) continue;
      const job = jobs[index];
      const state = job ? await job.getState() : 'missing';
      if (!started.has(index) && (isStarted(job) || state === 'completed')) {
        started.add(index);
        emit({ type: 'task.started', index, sessionId: id });
      }
      const restart = restartIn(job);
      if (restart && restart.attempt > (restarts.get(index) ?? 0) && state !== 'completed') {
        restarts.set(index, restart.attempt);
        const { attempt, reason, error, backoffMs } = restart;
        const told = error !== undefined ? { error } : {};
        emit({ type: 'task.restarted', index, sessionId: id, attempt, reason, ...told, backoffMs });
      }
      const result = job ? finishedResult(job, state, index) : gone(index, id);
      if (result) {
        results.set(index, result);
        emit({ type: 'task.finished', index, result });
      }
    }
    if (results.size < total) await pause(options.intervalMs ?? 200, options.signal);
  }
  return ids.map((_, index) => results.get(index)!);
}

function isStarted(job: Job | undefined): boolean {
  const type = (job?.progress as TaskProgress | undefined)?.type;
  return type === 'task.started' || type === 'task.restarted';
}

/** The restart a job's progress reports, if it is one (the progress is read back from Redis: checked). */
function restartIn(job: Job | undefined): (TaskProgress & { type: 'task.restarted' }) | undefined {
  const progress = taskProgressSchema.safeParse(job?.progress);
  return progress.success && progress.data.type === 'task.restarted' ? progress.data : undefined;
}

function finishedResult(job: Job, state: string, index: number): JobTaskResult | undefined {
  if (state === 'completed') {
    // Read before the state changed: the next round reads the job again.
    if (job.returnvalue === null || job.returnvalue === undefined) return undefined;
    const value = taskResultSchema.safeParse(job.returnvalue);
    if (!value.success)
      return {
        index,
        sessionId: job.id,
        reason: 'failed',
        text: '',
        usage: emptyUsage,
        error: `not a task result: ${JSON.stringify(job.returnvalue)}`,
        denied: [],
      };
    return { index, sessionId: job.id, ...value.data };
  }
  if (state === 'failed')
    return {
      index,
      sessionId: job.id,
      reason: 'failed',
      text: '',
      usage: emptyUsage,
      error: job.failedReason,
      denied: [],
    };
  return undefined;
}

/** A job no longer on the queue: `cancelTask` removed it before it ran. */
function gone(index: number, id: string): JobTaskResult {
  return {
    index,
    sessionId: id,
    reason: 'canceled',
    text: '',
    usage: emptyUsage,
    error: 'removed from the queue before it ran',
    denied: [],
  };
}

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve();
    };
    // The listener goes with its pause: one left behind per poll piled up on the signal (Node warned of a
    // leak after 11 polls, on stderr of `agentchart job --redis`).
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
