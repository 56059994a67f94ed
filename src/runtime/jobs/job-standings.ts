import type { JobProgress } from './job-types.ts';

/**
 * Where one job of an agent system stands: its tasks, how many have finished (those that `failed` among
 * them: any end but `completed`, a dependency that failed included), run now, or wait for a dependency.
 * The ones not started yet are `tasks - finished - running`. `ended` once its result is in.
 */
export type JobStanding = {
  id: string;
  tasks: number;
  finished: number;
  failed: number;
  running: number;
  waiting: number;
  ended: boolean;
};

/** What a host reads of a system's jobs (`AgentSystem.jobs`): each job's standing, now and as it changes. */
export interface JobWatch {
  /** Every job running, and the last ones that ended (at most `keptEndedJobs`), in the order they began. */
  list(): JobStanding[];
  /** Calls `listener` after each change of a standing; returns how to stop. A listener that throws is dropped. */
  subscribe(listener: () => void): () => void;
}

/** How many ended jobs a system remembers. */
export const keptEndedJobs = 20;

/** The standings of one system's jobs, kept from `runJob`'s progress events. */
export class JobStandings implements JobWatch {
  private readonly jobs = new Map<string, JobStanding>();
  private readonly listeners = new Set<() => void>();

  begin(id: string, tasks: number): void {
    this.jobs.set(id, { id, tasks, finished: 0, failed: 0, running: 0, waiting: 0, ended: false });
    this.changed();
  }

  progress(id: string, progress: JobProgress): void {
    const job = this.jobs.get(id);
    if (!job) return;
    job.finished = progress.finished;
    job.running = progress.running;
    job.waiting = progress.waiting;
    if (progress.type === 'task.finished' && progress.result.reason !== 'completed') job.failed++;
    this.changed();
  }

  end(id: string): void {
    const job = this.jobs.get(id);
    if (!job) return;
    job.ended = true;
    job.running = 0;
    const ended = [...this.jobs.values()].filter((each) => each.ended);
    for (const old of ended.slice(0, Math.max(0, ended.length - keptEndedJobs))) this.jobs.delete(old.id);
    this.changed();
  }

  list(): JobStanding[] {
    return [...this.jobs.values()].map((job) => ({ ...job }));
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    for (const listener of this.listeners) {
      try {
        listener();
      } catch {
        // A host's listener is not the job's business: it is dropped, and the job goes on.
        this.listeners.delete(listener);
      }
    }
  }
}
