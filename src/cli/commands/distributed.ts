// `agentchart worker` and `agentchart job FILE --redis --postgres`: tasks on BullMQ workers, sessions in
// PostgreSQL. Loaded only when asked for, so the embedded CLI never loads bullmq or pg.
import { basename, resolve } from 'node:path';
import { enqueueJob } from '../../bullmq/enqueue-job.ts';
import { followJob } from '../../bullmq/follow-job.ts';
import { bullmq } from '../../bullmq/peers.ts';
import { redisFromUrl } from '../../bullmq/redis-client.ts';
import { startWorker } from '../../bullmq/start-worker.ts';
import { fnv1a } from '../../core/hash.ts';
import { pgStore } from '../../postgres/pg-store.ts';
import { type AgentFlags, providerFor, workspaceOf } from '../agent-flags.ts';
import { workspaceSystemOptions } from '../agent-system.ts';
import { CliError } from '../cli-error.ts';
import { permissionsOf } from '../cli-permissions.ts';
import { type CliIo, line, personOut } from '../terminal/io.ts';
import { type DistributedFlags, progressLine, readJobFile, summary } from './job.ts';
import { graphLines, hasGraph } from './job-graph.ts';

export type WorkerFlags = AgentFlags & DistributedFlags & { concurrency?: number };

const defaultQueue = 'agentchart';

function servers(flags: DistributedFlags, command: 'worker' | 'job'): { redis: string; postgres: string } {
  if (flags.redis === undefined || flags.postgres === undefined) {
    const inProcess = command === 'job' ? ' (or neither, to run the job in this process)' : '';
    throw new CliError(`${command} needs both --redis URL and --postgres URL${inProcess}`, { exitCode: 2 });
  }
  return { redis: flags.redis, postgres: flags.postgres };
}

/** Resolves on SIGINT/SIGTERM, or when `signal` aborts. */
function stopRequested(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((done) => {
    if (signal) {
      if (signal.aborted) done();
      else signal.addEventListener('abort', () => done(), { once: true });
      return;
    }
    process.once('SIGINT', () => done());
    process.once('SIGTERM', () => done());
  });
}

/**
 * `agentchart worker --redis URL --postgres URL [--concurrency N]`: takes tasks from the queue and runs
 * them with the coding tools in the workspace (`--cwd`), headless: calls that would ask are denied unless
 * the mode allows them. Runs until SIGINT or SIGTERM, then lets its running tasks finish and exits 0.
 */
export async function workerCommand(flags: WorkerFlags, io: CliIo, signal?: AbortSignal): Promise<number> {
  const urls = servers(flags, 'worker');
  const cwd = await workspaceOf(io, flags.cwd);
  const { provider, description } = await providerFor(io, flags);
  // The workspace's settings rule a worker as they rule `run` and `job`: their permission rules and
  // default mode, hooks and MCP servers (untrusted workspace hooks and servers are named and left out).
  const { mode, ...fromSettings } = await permissionsOf(io, flags, cwd);
  const store = pgStore(urls.postgres);
  const queue = flags.queue ?? defaultQueue;
  // Listening before the worker starts: a stop that comes while it connects still closes it cleanly.
  const stop = stopRequested(signal);
  try {
    const worker = await startWorker({
      queue,
      connection: urls.redis,
      system: workspaceSystemOptions({
        io,
        provider,
        store,
        cwd,
        mode,
        ...fromSettings,
        ...(flags.maxSteps !== undefined ? { maxSteps: flags.maxSteps } : {}),
      }),
      concurrency: flags.concurrency ?? 1,
    });
    line(
      io.stderr,
      `agentchart: worker on queue "${queue}" with ${description}, ${flags.concurrency ?? 1} at a time`,
    );
    await stop;
    line(io.stderr, 'agentchart: stopping: running tasks finish first');
    await worker.close();
    return 0;
  } finally {
    await store.close();
  }
}

/**
 * `agentchart job FILE --redis URL --postgres URL`: enqueues one task per entry (ids `<file>-<hash>-<n>`,
 * or `<file>-<hash>-<id>` for a task with an `id`, so the same file enqueued again runs nothing twice) and
 * follows them until all ended. A file's task graph (`dependsOn`) runs as `runJob` runs it, on the workers. The workers'
 * concurrency decides how many run at once. Ctrl-C stops following; the tasks go on.
 */
export async function distributedJobCommand(
  file: string,
  flags: AgentFlags & DistributedFlags,
  io: CliIo,
): Promise<number> {
  const urls = servers(flags, 'job');
  const path = resolve(io.cwd, file);
  const spec = await readJobFile(path);
  const name = `${basename(path)
    .replace(/\.json$/i, '')
    .replace(/[^A-Za-z0-9._-]/g, '_')}-${fnv1a(JSON.stringify(spec.tasks)).toString(16)}`;
  const ui = personOut(io, flags.json);
  const connection = redisFromUrl(urls.redis);
  connection.on('error', () => {});
  const queue = new bullmq.Queue(flags.queue ?? defaultQueue, { connection });
  queue.on('error', () => {});
  const stop = new AbortController();
  const onInterrupt = () =>
    stop.abort(new CliError('stopped following; the tasks go on on the workers', { exitCode: 130 }));
  process.once('SIGINT', onInterrupt);
  try {
    // The file's ids (and what depends on them) are prefixed with the job's name, so they stay apart
    // from other files' and, like the rest, the same for the same file.
    const session = (id: string) => `${name}-${id}`;
    const { ids } = await enqueueJob(queue, {
      name,
      tasks: spec.tasks.map((task) => ({
        prompt: task.prompt,
        ...(task.instructions !== undefined ? { instructions: task.instructions } : {}),
        ...(task.id !== undefined ? { id: session(task.id) } : {}),
        ...(task.dependsOn !== undefined ? { dependsOn: task.dependsOn.map(session) } : {}),
      })),
      ...(spec.onDependencyFailure ? { onDependencyFailure: spec.onDependencyFailure } : {}),
    });
    line(ui, `agentchart: job ${file}: ${ids.length} task(s) on queue "${queue.name}" (ids ${ids[0]} …)`);
    const graph = hasGraph(spec);
    if (graph) for (const text of graphLines(spec)) line(ui, text);
    const results = await followJob(queue, ids, {
      signal: stop.signal,
      onProgress: (progress) => {
        if (progress.type !== 'task.finished') return;
        const label = spec.tasks[progress.index]?.id;
        const waiting = progress.waiting > 0 ? ` · ${progress.waiting} waiting` : '';
        line(ui, `${progressLine(progress.result, progress.finished, ids.length, label)}${waiting}`);
      },
    });
    if (flags.json) for (const result of results) line(io.stdout, JSON.stringify(result));
    if (graph) for (const text of graphLines(spec, results)) line(ui, text);
    line(ui, summary(results));
    return results.every((result) => result.reason === 'completed') ? 0 : 1;
  } finally {
    process.off('SIGINT', onInterrupt);
    await queue.close();
    connection.disconnect();
  }
}
