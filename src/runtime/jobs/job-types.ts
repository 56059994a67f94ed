// The shapes of a multi-agent job (`system.runJob`), apart from the code that runs it, so the schema
// that parses job options can name them without importing the runner.
import type { Usage } from '../../providers/types.ts';
import type { RestartReason, StopReason } from '../../session/types.ts';
import type { OutputOptions } from '../../tools/output-schema.ts';
import type { SupervisionPolicy } from '../../tools/supervision-option.ts';
import type { CreateAgentOptions } from '../options.ts';
import type { DeniedCall } from '../turn-result.ts';
import type { WorktreeResult } from '../worktrees/worktree-life.ts';

/**
 * One task of a job: a prompt, plus any `createAgent` option (model, tools, instructions, id); with
 * `output` (see `OutputOptions`) a typed run, whose result carries the parsed `output`.
 */
export type JobTask = { prompt: string } & CreateAgentOptions &
  OutputOptions & {
    /** Restart the task when it fails (default: the job's `supervision`, or never); see `SupervisionPolicy`. */
    supervision?: SupervisionPolicy;
    /**
     * The ids of tasks of this job that must complete before this one starts: their results are added to
     * its prompt (see `JobOptions.dependencyPrompt`). One that does not complete ends this task
     * `dependency_failed`, unless `JobOptions.onDependencyFailure` is `'run'`.
     */
    dependsOn?: string[];
  };

/**
 * How one task ended. `reason` is the turn's stop reason, `failed` when its agent could not be created or
 * broke (then `error` says why), or `dependency_failed` when a task it depends on did not complete (`error`
 * names it; the task never ran). A task cancelled before it started has no `sessionId`.
 * A task that `completed` with calls `denied` did its work without them: check `denied`.
 */
export type JobTaskResult = {
  index: number;
  sessionId: string | undefined;
  reason: StopReason | 'failed' | 'dependency_failed';
  text: string;
  usage: Usage;
  /** Why the task did not complete: for `failed`, and the message of `RunResult.error` for a turn that stopped. */
  error?: string;
  /** The calls of the task's turn that were denied, by whom and why (`RunResult.denied`); empty when none. */
  denied: DeniedCall[];
  /** A typed task that completed: the value its `output` schema gave. */
  output?: unknown;
  /** How many times its supervision restarted it (absent: none). */
  restarts?: number;
  /**
   * An isolated task's worktree (`isolation: 'worktree'`), once its agent was disposed: kept with its branch
   * (`branch`, `baseCommit`, `commit`, `filesChanged`, `diffStat`; merging it is the host's choice), or
   * `kept: false` when the task changed nothing (worktree and branch removed).
   */
  worktree?: WorktreeResult;
};

/**
 * Where a task's agent stands in its job, recorded in its `session.start` (`config.job`) so a reader of the
 * logs alone (the inspector's board) knows the job's size: `id` names the job within its system (`job-1`,
 * `job-2`, … in the order the system started them), `index` is the task's place, `tasks` how many there are.
 */
export type JobPlace = { id: string; index: number; tasks: number };

/** One finished dependency of a task: its id in the job, and its result. */
export type DependencyResult = { id: string; result: JobTaskResult };

/**
 * Counters that come with every progress event: tasks `running`, `finished`, in all (`total`), and
 * `waiting` for a dependency that has not ended yet (0 in a job without dependencies).
 */
export type JobCounts = { running: number; finished: number; total: number; waiting: number };

export type ProgressBody =
  | { type: 'task.started'; index: number; sessionId: string }
  | {
      type: 'task.restarted';
      index: number;
      sessionId: string;
      attempt: number;
      reason: RestartReason;
      error?: string;
      backoffMs: number;
    }
  | { type: 'task.finished'; index: number; result: JobTaskResult };

/**
 * A task started (its agent exists), was restarted by its supervision (after `backoffMs`, the `attempt`-th
 * time), or finished (its agent is disposed).
 */
export type JobProgress = ProgressBody & JobCounts;

export type JobOptions = {
  tasks: readonly JobTask[];
  /** Agents alive at once (at least 1). */
  concurrency: number;
  /**
   * Called when a task starts and when it finishes.
   * Contract: must not throw; if it does, the job cancels its tasks and `result` rejects with that error.
   */
  onProgress?: (progress: JobProgress) => void;
  /** Aborting it is the same as `job.cancel()`. */
  signal?: AbortSignal;
  /** How every task is restarted when it fails, unless it says otherwise (default: never). */
  supervision?: SupervisionPolicy;
  /**
   * What a task whose dependency did not complete does: `'skip'` (the default) ends it
   * `dependency_failed` without running it, and so on down the graph; `'run'` runs it anyway, with the
   * failed result among the others.
   */
  onDependencyFailure?: 'skip' | 'run';
  /**
   * Makes the prompt of a task that has dependencies, once they have ended (default: its prompt, then
   * each dependency's result in a `<dependency id reason>` block, a typed one's `output` as JSON).
   * Contract: must not throw; if it does, the task ends `failed` with its error.
   */
  dependencyPrompt?: (task: JobTask, dependencies: DependencyResult[]) => string;
};

/**
 * A running job.
 * Contract: `result` never rejects because of a task (a failed or cancelled task is a result); it
 * resolves once every task has ended and every agent of the job is disposed.
 */
export interface Job {
  /** One result per task, in task order. */
  readonly result: Promise<JobTaskResult[]>;
  /** Cancels one task (`index`) or, without an argument, every running and waiting task. */
  cancel(index?: number): void;
}
