// Task graphs on BullMQ workers. A task with dependencies is enqueued parked (a delayed job that would wait
// a day), so every task is a job from the start, and it is promoted once all its dependencies have ended:
// by the worker that ended the last of them (after its state is in Redis), and by a sweep every worker
// runs now and then, which covers a promotion a dead worker did not make. Promoting twice is harmless, and
// a dependent that runs before its dependencies have ended (its parking ran out) is parked again.
import type { Job, Queue } from 'bullmq';
import { emptyUsage } from '../providers/types.ts';
import { promptWithDependencies } from '../runtime/jobs/dependency-prompt.ts';
import type { DependencyResult } from '../runtime/jobs/job-types.ts';
import { hasEnded, taskOutcome } from './task-outcome.ts';
import { type TaskData, type TaskResult, taskDataSchema } from './task-queue.ts';

/** How long a parked task waits if nothing promotes it: then its worker checks and parks it again. */
export const parkedDelayMs = 86_400_000;

/**
 * The results of the tasks `ids`, in that order, once each has ended (a job gone from the queue was
 * removed: `canceled`); `undefined` while one has not.
 */
export async function dependencyResults(
  queue: Queue,
  ids: readonly string[],
): Promise<DependencyResult[] | undefined> {
  const results: DependencyResult[] = [];
  for (const id of ids) {
    const job: Job | undefined = await queue.getJob(id);
    const state = job ? await job.getState() : 'missing';
    if (!hasEnded(state)) return undefined;
    const index = taskDataSchema.safeParse(job?.data).data?.index ?? -1;
    const result = taskOutcome(job, state, index, id);
    if (!result) return undefined;
    results.push({ id, result });
  }
  return results;
}

/**
 * What a task whose dependencies have ended does, as `runJob` decides it: when one did not complete (the
 * first in `dependsOn` order) and the task's policy is not `'run'`, it ends `dependency_failed` without
 * running; else it runs with their results after its prompt.
 */
export function dependentStart(
  data: TaskData,
  dependencies: readonly DependencyResult[],
): { result: TaskResult } | { prompt: string } {
  const failed = dependencies.find(({ result }) => result.reason !== 'completed');
  if (failed && data.onDependencyFailure !== 'run') {
    const { reason, error } = failed.result;
    const why = `its dependency "${failed.id}" ended ${reason}`;
    const told = error !== undefined ? `${why}: ${error}` : why;
    return {
      result: { reason: 'dependency_failed', text: '', usage: emptyUsage, error: told, denied: [] },
    };
  }
  return { prompt: promptWithDependencies(data.prompt, dependencies) };
}

/** Promotes each parked task of `ids` whose dependencies have all ended; others are left as they are. */
export async function promoteReady(queue: Queue, ids: readonly string[]): Promise<number> {
  let promoted = 0;
  for (const id of ids) {
    const job: Job | undefined = await queue.getJob(id);
    if (!job || !(await job.isDelayed())) continue;
    const data = taskDataSchema.safeParse(job.data);
    const dependsOn = data.success ? (data.data.dependsOn ?? []) : [];
    if (dependsOn.length === 0 || !(await dependencyResults(queue, dependsOn))) continue;
    try {
      await job.promote();
      promoted++;
    } catch (error) {
      // Another worker promoted it first (it is no longer delayed): that is the promotion wanted.
      if (!(error instanceof Error && error.message.includes('is not in the delayed state'))) throw error;
    }
  }
  return promoted;
}

/** Promotes every parked task of the queue whose dependencies have all ended. */
export async function sweepParked(queue: Queue): Promise<number> {
  const delayed = await queue.getDelayed();
  const parked = delayed.filter((job) => (taskDataSchema.safeParse(job.data).data?.dependsOn ?? []).length);
  return promoteReady(
    queue,
    parked.map((job) => job.id!),
  );
}

/**
 * Sweeps `queue` now and then every `intervalMs` until stopped; one sweep at a time. A sweep that fails
 * (Redis away for a moment) is the next one's to do.
 */
export function startSweeps(queue: Queue, intervalMs: number): { stop(): Promise<void> } {
  let busy: Promise<unknown> | undefined;
  let stopped = false;
  const sweep = () => {
    if (busy || stopped) return;
    busy = sweepParked(queue)
      .catch(() => 0)
      .finally(() => {
        busy = undefined;
      });
  };
  sweep();
  const timer = setInterval(sweep, intervalMs);
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await busy;
    },
  };
}
