// A job file's task graph on the terminal: the tasks and what each waits for before the job starts, and
// how each ended after; and the tasks given to `runJob`, whose ids are the sessions' (so each run of the
// same file gets fresh sessions: `<id>-<tag>`, the dependencies renamed alike).
import { randomBytes } from 'node:crypto';
import type { JobTask, JobTaskResult } from '../../runtime/jobs/run-job.ts';

/** What these read of a job file (`JobFile`). */
type JobFile = {
  tasks: Array<{
    prompt: string;
    instructions?: string;
    id?: string;
    dependsOn?: string[];
    isolation?: 'worktree';
  }>;
  isolation?: 'worktree';
};

/** Whether any task of the file waits for another. */
export function hasGraph(spec: JobFile): boolean {
  return spec.tasks.some((task) => (task.dependsOn ?? []).length > 0);
}

/** A tag that keeps this run's session ids apart from an earlier run's of the same file. */
export function sessionTag(): string {
  return randomBytes(4).toString('hex');
}

/**
 * The file's tasks as `runJob` takes them (the file's `isolation` is each task's default); with `tag`, ids
 * (and what depends on them) become `<id>-<tag>`.
 */
export function jobTasks(spec: JobFile, tag: string | undefined): JobTask[] {
  const session = (id: string) => (tag === undefined ? id : `${id}-${tag}`);
  return spec.tasks.map((task) => ({
    prompt: task.prompt,
    ...(task.instructions !== undefined ? { instructions: task.instructions } : {}),
    ...(task.id !== undefined && tag !== undefined ? { id: session(task.id) } : {}),
    ...(task.dependsOn !== undefined ? { dependsOn: task.dependsOn.map(session) } : {}),
    ...((task.isolation ?? spec.isolation) ? { isolation: 'worktree' as const } : {}),
  }));
}

/**
 * One line per task — `  bottom ← left, right` — and, once `results` are in, how each ended:
 * `  ✓ bottom ← left, right: completed`, `  ✗ after ← broken: dependency_failed (its dependency ...)`.
 */
export function graphLines(spec: JobFile, results?: readonly JobTaskResult[]): string[] {
  const head = results
    ? 'agentchart: how the graph ended:'
    : 'agentchart: the task graph (a task ← what it waits for):';
  return [
    head,
    ...spec.tasks.map((task, index) => {
      const name = task.id ?? `task ${index}`;
      const waits = task.dependsOn?.length ? ` ← ${task.dependsOn.join(', ')}` : '';
      const result = results?.[index];
      if (!result) return `  ${name}${waits}`;
      const mark = result.reason === 'completed' ? '✓' : '✗';
      const why = result.reason === 'completed' || result.error === undefined ? '' : ` (${result.error})`;
      return `  ${mark} ${name}${waits}: ${result.reason}${why}`;
    }),
  ];
}
