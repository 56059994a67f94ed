// What a live system says of its jobs, in place of the job lines the board counts from the logs. Served to
// the page as its source with board.ts's functions (it reads no module-level name).
import type { BoardJob } from './board-types.ts';

/**
 * The job lines with what the live system says of its jobs (`AgentSystem.jobs`) in place of what the logs
 * show: the logs of tasks that ended before the page opened are no longer there, and such a task would
 * count as not started. A job the system does not name (a recording) keeps the counts of its logs.
 */
export function withSystemJobs(
  fromLogs: readonly BoardJob[],
  system: readonly unknown[] | undefined,
): BoardJob[] {
  const count = (value: unknown) =>
    typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : 0;
  const told = new Map<string, BoardJob>();
  for (const entry of system ?? []) {
    const job = (entry ?? {}) as Record<string, unknown>;
    if (typeof job.id !== 'string') continue;
    const [tasks, finished, running] = [count(job.tasks), count(job.finished), count(job.running)];
    const failed = Math.min(count(job.failed), finished);
    const notStarted = Math.max(0, tasks - finished - running);
    told.set(job.id, { id: job.id, tasks, finished, failed, running, notStarted });
  }
  const merged = fromLogs.map((job) => told.get(job.id) ?? job);
  const shown = new Set(merged.map((job) => job.id));
  // A job whose tasks the page has no log of at all (every one ended before it opened) is still one.
  for (const job of told.values()) if (!shown.has(job.id)) merged.push(job);
  return merged;
}
