import type { Job, Queue } from 'bullmq';
import type { JobProgress, JobTaskResult, ProgressBody } from '../runtime/jobs/job-types.ts';
import { taskOutcome } from './task-outcome.ts';
import { type TaskProgress, taskDataSchema, taskProgressSchema } from './task-queue.ts';

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
 * reason; one removed by `cancelTask` before it ran is `canceled`. Tasks of a graph parked until their
 * dependencies have ended are counted `waiting`; one stopped by a failed dependency ends
 * `dependency_failed` without a `task.started` or a session, as in `runJob`. The jobs' states are read from Redis
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
  /** Tasks parked until their dependencies have ended, as of the last read. */
  let waiting = 0;
  const total = ids.length;
  const emit = (body: ProgressBody) => {
    const running = [...started].filter((index) => !results.has(index)).length;
    options.onProgress?.({ ...body, running, finished: results.size, total, waiting } as JobProgress);
  };
  while (results.size < total) {
    options.signal?.throwIfAborted();
    const jobs = await Promise.all(
      ids.map((id, index) => (results.has(index) ? undefined : queue.getJob(id))),
    );
    const states = await Promise.all(
      ids.map((_, index) => (results.has(index) ? 'ended' : (jobs[index]?.getState() ?? 'missing'))),
    );
    waiting = ids.filter((_, index) => isParked(jobs[index], states[index]!)).length;
    for (const [index, id] of ids.entries()) {
      if (results.has(index)) continue;
      const job = jobs[index];
      const state = states[index]!;
      const result = taskOutcome(job, state, index, id);
      // A task stopped by a failed dependency never started, as in `runJob`.
      const ran = state === 'completed' && result?.reason !== 'dependency_failed';
      if (!started.has(index) && (isStarted(job) || ran)) {
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
      if (result) {
        // Like `runJob`'s, a task that never ran has no session.
        results.set(
          index,
          result.reason === 'dependency_failed' ? { ...result, sessionId: undefined } : result,
        );
        emit({ type: 'task.finished', index, result: results.get(index)! });
      }
    }
    if (results.size < total) await pause(options.intervalMs ?? 200, options.signal);
  }
  return ids.map((_, index) => results.get(index)!);
}

/** A task's job parked until its dependencies have ended (delayed, and not a retry's backoff). */
function isParked(job: Job | undefined, state: string): boolean {
  if (state !== 'delayed' || isStarted(job)) return false;
  return (taskDataSchema.safeParse(job?.data).data?.dependsOn ?? []).length > 0;
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
