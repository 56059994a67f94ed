import { z } from 'zod/v4';
import { parseHostValue } from '../../core/host-schema.ts';
import { AgentStateError } from '../../errors/agent-state-error.ts';
import { ConfigError } from '../../errors/config-error.ts';
import { messageOf } from '../../errors/describe-value.ts';
import { outputOptionsOf, outputOptionsSchema } from '../../tools/output-schema.ts';
import { supervisionSpecOf } from '../../tools/supervision-option.ts';
import type { Agent } from '../agent-handle.ts';
import type { CreateAgentOptions } from '../options.ts';
import { promptWithDependencies } from './dependency-prompt.ts';
import { ended, resultOf, supervisedResult } from './job-results.ts';
import { jobCancelSchema, jobOptionsSchema } from './job-schemas.ts';
import type { Job, JobOptions, JobPlace, JobTask, JobTaskResult, ProgressBody } from './job-types.ts';
import { SupervisedTask, type TaskSupervisionHost } from './supervised-task.ts';
import { dependencyVerdict, type TaskGraph, taskGraph } from './task-graph.ts';
import { TaskSchedule } from './task-schedule.ts';

export type {
  DependencyResult,
  Job,
  JobCounts,
  JobOptions,
  JobPlace,
  JobProgress,
  JobTask,
  JobTaskResult,
} from './job-types.ts';

/**
 * What a job needs from an agent system; `supervision` for tasks whose policy restarts them, `jobId` to
 * name the job in each task's `session.start` (with `place`, the task's `JobPlace`).
 */
export type JobHost = {
  createAgent(options: CreateAgentOptions, place?: JobPlace): Promise<Agent>;
  supervision?: TaskSupervisionHost;
  jobId?: string;
};

/**
 * Runs one agent per task with at most `concurrency` alive at once (each is disposed before the next
 * starts), and returns a `Job` at once. Tasks start in order; results come back in task order.
 *
 * @example
 * const job = system.runJob({ tasks, concurrency: 8, onProgress: (p) => console.log(p.type, p.index) });
 * setTimeout(() => job.cancel(), 60_000);
 * for (const r of await job.result) console.log(r.index, r.reason, r.text);
 */
export function runJob(host: JobHost, options: JobOptions): Job {
  const parsed = parseHostValue('runJob', jobOptionsSchema, options);
  // A task's output schema that cannot be described fails the job's call, before any task starts.
  const outputs = parsed.tasks.map((task) => outputOptionsOf(task) ?? {});
  parseHostValue('runJob', z.object({ tasks: z.array(outputOptionsSchema) }), { tasks: outputs });
  // So does a dependency on no task, or a cycle.
  return new JobRun(host, parsed, taskGraph('runJob', parsed.tasks));
}

class JobRun implements Job {
  readonly result: Promise<JobTaskResult[]>;
  private readonly results: JobTaskResult[] = [];
  private readonly canceled = new Set<number>();
  private readonly live = new Map<number, Agent>();
  private readonly supervised = new Map<number, SupervisedTask>();
  private cancelAll = false;
  /** Tasks not taken yet: the ready ones in task order, and how many still wait for a dependency. */
  private readonly schedule: TaskSchedule;
  /** Wakes the workers waiting for a dependency when a task ends. */
  private taskEnded = signalled();
  private running = 0;
  private finished = 0;
  private progressError: { error: unknown } | undefined;

  constructor(
    private readonly host: JobHost,
    private readonly options: JobOptions,
    private readonly graph: TaskGraph,
  ) {
    this.schedule = new TaskSchedule(graph);
    const { signal } = options;
    const onAbort = () => this.cancel();
    if (signal?.aborted) this.cancelAll = true;
    signal?.addEventListener('abort', onAbort, { once: true });
    const workers = Math.min(options.concurrency, options.tasks.length);
    this.result = Promise.all(Array.from({ length: workers }, () => this.work())).then(() => {
      signal?.removeEventListener('abort', onAbort);
      if (this.progressError) throw this.progressError.error;
      return this.results;
    });
  }

  cancel(index?: number): void {
    if (index === undefined) {
      this.cancelAll = true;
      for (const task of this.supervised.values()) task.stop();
      for (const agent of this.live.values()) stop(agent);
      return;
    }
    parseHostValue('job.cancel', jobCancelSchema, { index });
    if (index >= this.options.tasks.length)
      throw new ConfigError(
        `job.cancel: index ${index} names no task (the job has ${this.options.tasks.length})`,
      );
    this.canceled.add(index);
    this.supervised.get(index)?.stop();
    const agent = this.live.get(index);
    if (agent) stop(agent);
  }

  private isCanceled(index: number): boolean {
    return this.cancelAll || this.canceled.has(index);
  }

  /** Takes the first task whose dependencies have ended, runs it, and again; waits while all wait. */
  private async work(): Promise<void> {
    while (!this.schedule.empty) {
      const index = this.schedule.take();
      if (index === undefined) {
        await this.taskEnded.promise;
        continue;
      }
      this.finish(await this.startTask(index));
    }
  }

  private verdict(index: number) {
    return dependencyVerdict(this.graph, index, (on) => this.results[on]?.reason);
  }

  /** A task whose dependencies have ended: cancelled, stopped by a failed one, or run with their results. */
  private async startTask(index: number): Promise<JobTaskResult> {
    if (this.isCanceled(index)) return ended(index, undefined, 'canceled');
    const task = this.options.tasks[index]!;
    const { failed } = this.verdict(index) as { failed?: { index: number } };
    if (failed && this.options.onDependencyFailure !== 'run') {
      const { reason, error } = this.results[failed.index]!;
      const why = `its dependency "${this.options.tasks[failed.index]!.id}" ended ${reason}`;
      return ended(index, undefined, 'dependency_failed', error !== undefined ? `${why}: ${error}` : why);
    }
    const waitedFor = this.graph.dependencies[index]!;
    if (waitedFor.length === 0) return this.runTask(index, task.prompt);
    const dependencies = waitedFor.map((on) => ({
      id: this.options.tasks[on]!.id!,
      result: this.results[on]!,
    }));
    let prompt: string;
    try {
      prompt = this.options.dependencyPrompt
        ? this.options.dependencyPrompt(task, dependencies)
        : promptWithDependencies(task.prompt, dependencies);
    } catch (error) {
      return ended(index, undefined, 'failed', `dependencyPrompt threw: ${messageOf(error)}`);
    }
    return this.runTask(index, prompt);
  }

  private async runTask(index: number, prompt: string): Promise<JobTaskResult> {
    const {
      prompt: _,
      output,
      jsonSchema,
      maxOutputRetries,
      supervision,
      dependsOn,
      ...agentOptions
    } = this.options.tasks[index]!;
    let agent: Agent;
    try {
      const { jobId } = this.host;
      const tasks = this.options.tasks.length;
      agent = await this.host.createAgent(
        agentOptions,
        jobId !== undefined ? { id: jobId, index, tasks } : undefined,
      );
    } catch (error) {
      return ended(index, undefined, 'failed', messageOf(error));
    }
    const typed = outputOptionsOf({ output, jsonSchema, maxOutputRetries });
    const task = { index, prompt, typed, supervision, agentOptions };
    let last = agent;
    const result = await this.runAgent(agent, task, (current) => (last = current));
    // Known once its agent is disposed: an isolated task's branch (kept) or that it changed nothing.
    const worktree = last.worktree;
    return worktree && 'kept' in worktree ? { ...result, worktree } : result;
  }

  /** Runs a created task's agent (and its restarts), then disposes the last of them. */
  private async runAgent(
    first: Agent,
    task: {
      index: number;
      prompt: string;
      typed: ReturnType<typeof outputOptionsOf>;
      supervision: JobTask['supervision'];
      agentOptions: CreateAgentOptions;
    },
    onAgent: (agent: Agent) => void,
  ): Promise<JobTaskResult> {
    const { index, prompt, typed, supervision, agentOptions } = task;
    let agent = first;
    this.live.set(index, agent);
    this.running++;
    this.emit({ type: 'task.started', index, sessionId: agent.id });
    try {
      // A cancel that came while the agent was being created stops the task before it runs.
      if (this.isCanceled(index)) return ended(index, agent.id, 'canceled');
      const policy = supervisionSpecOf(supervision ?? this.options.supervision);
      const host = this.host.supervision;
      if (!policy || !host) return resultOf(index, agent, await agent.run(prompt, typed));
      const { id, isolation, ...options } = agentOptions;
      const supervised = new SupervisedTask(agent, {
        host,
        policy,
        typed,
        options,
        report: ({ attempt, reason, error, backoffMs }) =>
          this.emit({
            type: 'task.restarted',
            index,
            sessionId: agent.id,
            attempt,
            reason,
            ...(error !== undefined ? { error } : {}),
            backoffMs,
          }),
      });
      this.supervised.set(index, supervised);
      const end = await supervised.run(prompt).finally(() => {
        agent = supervised.current;
        onAgent(agent);
        this.live.set(index, agent);
        this.supervised.delete(index);
      });
      return supervisedResult(index, end, this.isCanceled(index));
    } catch (error) {
      return ended(index, agent.id, this.isCanceled(index) ? 'canceled' : 'failed', messageOf(error));
    } finally {
      this.live.delete(index);
      await agent.dispose().catch(() => undefined);
      this.running--;
    }
  }

  private finish(result: JobTaskResult): void {
    this.results[result.index] = result;
    this.finished++;
    this.schedule.ended(result.index);
    this.emit({ type: 'task.finished', index: result.index, result });
    const ended = this.taskEnded;
    this.taskEnded = signalled();
    ended.resolve();
  }

  private emit(progress: ProgressBody): void {
    if (!this.options.onProgress || this.progressError) return;
    const { running, finished } = this;
    const counts = { running, finished, total: this.options.tasks.length, waiting: this.schedule.blocked };
    try {
      this.options.onProgress({ ...progress, ...counts });
    } catch (error) {
      // A broken progress callback ends the job: `result` rejects with its error once all is disposed.
      this.progressError = { error };
      this.cancel();
    }
  }
}

/** A promise and what resolves it (Node 20 has no `Promise.withResolvers`). */
function signalled(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

function stop(agent: Agent): void {
  try {
    agent.cancel('user');
  } catch (error) {
    // An agent that is already being disposed is stopping anyway; anything else is a real fault.
    if (!AgentStateError.isInstance(error)) throw error;
  }
}
