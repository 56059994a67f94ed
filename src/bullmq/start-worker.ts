import { hostname } from 'node:os';
import type { ConnectionOptions, Job, Worker, WorkerOptions } from 'bullmq';
import { ConfigError } from '../errors/config-error.ts';
import type { RestartReport } from '../machines/supervision-types.ts';
import { emptyUsage } from '../providers/types.ts';
import { type AgentSystem, createAgentSystem } from '../runtime/create-agent-system.ts';
import { runDurableTask } from '../runtime/jobs/durable-task.ts';
import type { AgentSystemOptions } from '../runtime/options.ts';
import { bullmq } from './peers.ts';
import { clientFor } from './redis-client.ts';
import {
  dependencyResults,
  dependentStart,
  parkedDelayMs,
  promoteReady,
  startSweeps,
} from './task-dependencies.ts';
import {
  cancelChannel,
  cancelKey,
  type TaskProgress,
  type TaskResult,
  taskDataSchema,
} from './task-queue.ts';

export type TaskWorkerOptions = {
  /** The queue's name, as the enqueuer's `Queue` was named. */
  queue: string;
  /** The Redis of the queue: a URL, ioredis options, or an ioredis client (`maxRetriesPerRequest: null`). */
  connection: ConnectionOptions | string;
  /**
   * The agent system every task runs on. Its `store` must be one all workers share (`pgStore`): that is
   * where a task taken over from another worker is resumed from. A memory store is refused.
   */
  system: AgentSystemOptions;
  /** Tasks (agents) this worker runs at once (default 1). */
  concurrency?: number;
  /** Further BullMQ worker options: `lockDuration`, `stalledInterval`, `maxStalledCount`, `limiter`, `prefix`. */
  worker?: Omit<WorkerOptions, 'connection' | 'concurrency' | 'autorun'>;
  /** How long a task waits for its session while another worker still holds it (default 30 s). */
  lockWaitMs?: number;
  /** Names this worker in progress events (default `<host>:<pid>`). */
  name?: string;
  /**
   * How often this worker looks for parked tasks (of a task graph) whose dependencies have all ended and
   * promotes them (default 5 s; also once at start): what a worker that died did not promote.
   */
  sweepMs?: number;
};

/** A running worker. Contract: `close()` lets running tasks finish, then frees every connection. */
export type TaskWorker = { readonly worker: Worker; readonly system: AgentSystem; close(): Promise<void> };

/**
 * Runs queued tasks (see `enqueueJob`) on an agent system, `concurrency` at a time. A task whose session
 * already exists — a retry, or a job BullMQ took from a worker that stalled or died — is resumed from the
 * shared store, never started over (see `runDurableTask`). A task's result (its job's `returnvalue`) is
 * `{ reason, text, usage }`; when its agent is live the job's progress says so (`task.started`). A
 * `cancelTask` anywhere cancels the task's agent here. A failure that is not the task's own (the store or
 * Redis unreachable for longer than their retries) fails the attempt, and BullMQ's next one resumes it.
 *
 * A task of a graph (`dependsOn`) runs once its dependencies have ended, with their results after its
 * prompt, or ends `dependency_failed` without a session when one did not complete (as in `runJob`). This
 * worker promotes a parked task when it ends one of its dependencies, and sweeps every `sweepMs` for
 * parked tasks another worker did not promote (see `task-dependencies.ts`).
 *
 * @example
 * const worker = await startWorker({ queue: 'agentchart', connection: 'redis://127.0.0.1:6379',
 *   system: { model, tools: codingTools(), store: pgStore(databaseUrl) }, concurrency: 4 });
 * process.once('SIGTERM', () => worker.close());
 */
export async function startWorker(options: TaskWorkerOptions): Promise<TaskWorker> {
  if (!options.system.store || options.system.store.kind === 'memory')
    throw new ConfigError(
      'startWorker: system.store must be a store all workers share (pgStore), not memory',
    );
  const system = createAgentSystem(options.system);
  const name = options.name ?? `${hostname()}:${process.pid}`;
  const { client: redis, owned } = clientFor(options.connection);
  const place = { name: options.queue, opts: { prefix: options.worker?.prefix } };
  const subscriber = redis.duplicate();
  // Without an error listener a Redis restart would crash the process; ioredis reconnects by itself.
  for (const client of [redis, subscriber]) client.on('error', () => {});

  const connection = (
    typeof options.connection === 'string' ? redis : options.connection
  ) as ConnectionOptions;
  // Reads the jobs of a task's dependencies and dependents; shares the worker's connection.
  const queue = new bullmq.Queue(options.queue, { connection, prefix: place.opts.prefix });
  queue.on('error', () => {});

  const processor = async (job: Job, token?: string, signal?: AbortSignal): Promise<TaskResult> => {
    const data = taskDataSchema.parse(job.data);
    const id = job.id!;
    if ((await redis.exists(cancelKey(place, id))) > 0)
      return { reason: 'canceled', text: '', usage: emptyUsage, denied: [] };
    let prompt = data.prompt;
    if (data.dependsOn?.length) {
      const dependencies = await dependencyResults(queue, data.dependsOn);
      if (!dependencies) {
        // Its parking ran out before its dependencies ended: parked again, not run.
        await job.moveToDelayed(Date.now() + parkedDelayMs, token);
        throw new bullmq.DelayedError();
      }
      const start = dependentStart(data, dependencies);
      if ('result' in start) return start.result;
      prompt = start.prompt;
    }
    // Progress is advice for followers; a lost one changes nothing about the task.
    const tell = (progress: TaskProgress) => void job.updateProgress(progress).catch(() => {});
    const supervision = data.supervision && {
      policy: data.supervision,
      host: system.taskSupervision,
      onRestart: ({ attempt, reason, error, backoffMs }: RestartReport) =>
        tell({
          type: 'task.restarted',
          sessionId: id,
          worker: name,
          attempt,
          reason,
          backoffMs,
          ...(error !== undefined ? { error } : {}),
        }),
    };
    const result = await runDurableTask(
      system,
      {
        id,
        // A resumed dependent composes the same prompt (its dependencies' results are kept); only a new
        // session uses it.
        prompt,
        ...(data.instructions !== undefined ? { instructions: data.instructions } : {}),
        ...(data.traceParent !== undefined ? { traceParent: data.traceParent } : {}),
      },
      {
        ...(signal ? { signal } : {}),
        ...(options.lockWaitMs !== undefined ? { lockWaitMs: options.lockWaitMs } : {}),
        ...(supervision ? { supervision } : {}),
        onStarted: ({ resumed }) => tell({ type: 'task.started', sessionId: id, resumed, worker: name }),
      },
    );
    const { reason, text, usage, error, denied, restarts } = result;
    return {
      reason,
      text,
      usage,
      ...(error ? { error: error.message } : {}),
      denied,
      ...(restarts ? { restarts } : {}),
    };
  };

  const worker = new bullmq.Worker(options.queue, processor, {
    ...options.worker,
    connection,
    concurrency: options.concurrency ?? 1,
    autorun: false,
  });
  // A worker 'error' (Redis gone for a moment) is retried by BullMQ itself; the listener keeps Node up.
  worker.on('error', () => {});
  // After a task has ended (its state is in Redis), the tasks waiting for it may go. A promotion lost here
  // (Redis away, this process killed) is made by a sweep.
  const promoteDependents = (job: Job | undefined) => {
    const dependents = taskDataSchema.safeParse(job?.data).data?.dependents ?? [];
    if (dependents.length > 0) void promoteReady(queue, dependents).catch(() => 0);
  };
  worker.on('completed', promoteDependents);
  worker.on('failed', promoteDependents);
  await subscriber.subscribe(cancelChannel(place));
  subscriber.on('message', (_channel: string, taskId: string) => {
    worker.cancelJob(taskId, 'canceled');
  });
  await worker.waitUntilReady();
  void worker.run();
  const sweeps = startSweeps(queue, options.sweepMs ?? 5000);

  let closing: Promise<void> | undefined;
  return {
    worker,
    system,
    close() {
      closing ??= (async () => {
        await sweeps.stop();
        await worker.close();
        await queue.close();
        await system.dispose();
        await subscriber.quit().catch(() => subscriber.disconnect());
        if (owned) await redis.quit().catch(() => redis.disconnect());
      })();
      return closing;
    },
  };
}
