// How a queued task ended, read from its job in Redis: what a follower reports, and what a dependent task
// is told of its dependencies. A job's returnvalue is read back from Redis, so it is checked.
import type { Job } from 'bullmq';
import { emptyUsage } from '../providers/types.ts';
import type { JobTaskResult } from '../runtime/jobs/job-types.ts';
import { taskResultSchema } from './task-queue.ts';

/** The job states in which a task has ended for good (a job that is gone was removed: cancelled). */
export function hasEnded(state: string): boolean {
  return state === 'completed' || state === 'failed' || state === 'missing' || state === 'unknown';
}

/**
 * The result of task `index` (session `id`) if its job has ended: `completed` gives the worker's result,
 * `failed` (every attempt failed) is `failed` with BullMQ's reason, and a job no longer on the queue
 * (`state` `missing`/`unknown`, `job` undefined) was removed by `cancelTask` before it ran: `canceled`.
 */
export function taskOutcome(
  job: Job | undefined,
  state: string,
  index: number,
  id: string,
): JobTaskResult | undefined {
  if (!job || state === 'missing' || state === 'unknown') return gone(index, id);
  if (state === 'completed') {
    // Read before the state changed: the next read of the job has it.
    if (job.returnvalue === null || job.returnvalue === undefined) return undefined;
    const value = taskResultSchema.safeParse(job.returnvalue);
    if (!value.success) return failed(index, id, `not a task result: ${JSON.stringify(job.returnvalue)}`);
    return { index, sessionId: id, ...value.data };
  }
  if (state === 'failed') return failed(index, id, job.failedReason);
  return undefined;
}

function failed(index: number, id: string, error: string): JobTaskResult {
  return { index, sessionId: id, reason: 'failed', text: '', usage: emptyUsage, error, denied: [] };
}

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
