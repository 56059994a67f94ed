// Task graphs on a BullMQ worker in this process, sessions in PostgreSQL: a graph with a diamond, a failure
// and its dependents ends as `runJob` ends it (same reasons, same error texts, same prompts); a dependent
// starts only after its dependencies have ended, and a stopped one never starts; a bad graph is refused
// before any job is added; a parked task no worker event would promote is promoted by the sweep.
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueJob } from '../../src/bullmq/enqueue-job.ts';
import { followJob } from '../../src/bullmq/follow-job.ts';
import { redisFromUrl } from '../../src/bullmq/redis-client.ts';
import { startWorker } from '../../src/bullmq/start-worker.ts';
import { ConfigError } from '../../src/errors/config-error.ts';
import { pgStore } from '../../src/postgres/pg-store.ts';
import { promptWithDependencies } from '../../src/runtime/jobs/dependency-prompt.ts';
import type { JobProgress, JobTaskResult } from '../../src/runtime/jobs/job-types.ts';
import { isEvent } from '../../src/session/types.ts';
import { hasServers, noServers, type SuiteServers, useServers } from '../support/servers.ts';
import { graphTask, taskModel, taskPrompt, workTool } from '../support/task-model.ts';

let servers: SuiteServers;
let databaseUrl = '';
const open: Array<() => Promise<unknown>> = [];
let queueCounter = 0;

/** A worker on a fresh queue that sweeps for parked tasks every `sweepMs`. */
async function setup(sweepMs = 200) {
  const name = `graph${++queueCounter}`;
  const store = pgStore(databaseUrl, { schema: name, migrate: true });
  const connection = redisFromUrl(servers.redis.url);
  const queue = new Queue(name, { connection });
  const worker = await startWorker({
    queue: name,
    connection: servers.redis.url,
    system: { model: taskModel(5), tools: [workTool(40)], store },
    concurrency: 3,
    sweepMs,
  });
  open.push(async () => {
    await worker.close();
    await queue.close();
    connection.disconnect();
    await store.close();
  });
  return { store, queue };
}

/** The first user message of a session: the prompt its task ran with. */
async function promptOf(store: ReturnType<typeof pgStore>, id: string): Promise<string | undefined> {
  const { events } = await store.load(id);
  const first = events.find((event) => isEvent(event, 'user.message'));
  return first && isEvent(first, 'user.message') ? first.data.content : undefined;
}

describe.skipIf(!hasServers)(`task graphs on BullMQ${hasServers ? '' : ` — skipped: ${noServers}`}`, () => {
  servers = useServers();
  beforeAll(async () => {
    databaseUrl = await servers.postgres.createDatabase('graphs');
  });
  afterAll(async () => {
    for (const close of open.reverse()) await close();
  }, 30_000);

  it('runs a diamond and a failure as runJob does: dependents after their dependencies, stopped ones never', async () => {
    // No sweep but the one at start: each dependent is promoted by the worker that ended its dependency.
    const { queue, store } = await setup(600_000);
    const task = (id: string, dependsOn: string[] = [], failures = 0) =>
      graphTask(2, id, dependsOn, failures);
    const tasks = [
      task('top'),
      task('left', ['top']),
      task('right', ['top']),
      task('bottom', ['left', 'right']),
      task('broken', [], 1),
      task('after-broken', ['broken']),
      task('after-after', ['after-broken', 'top']),
      task('free'),
    ];
    const { ids } = await enqueueJob(queue, { tasks });
    // Every task is a job from the start; the dependents are parked.
    expect(await queue.getJobCounts('delayed')).toEqual({ delayed: 5 });
    // A dependent promoted before its dependencies ended is parked again by the worker that takes it.
    await (await queue.getJob('bottom'))!.promote();
    const progress: JobProgress[] = [];
    const results = await followJob(queue, ids, { intervalMs: 50, onProgress: (p) => progress.push(p) });

    const byId = new Map(results.map((result) => [ids[result.index]!, result]));
    expect(results.map(({ sessionId, reason, error }) => ({ sessionId, reason, error }))).toEqual([
      { sessionId: 'top', reason: 'completed', error: undefined },
      { sessionId: 'left', reason: 'completed', error: undefined },
      { sessionId: 'right', reason: 'completed', error: undefined },
      { sessionId: 'bottom', reason: 'completed', error: undefined },
      { sessionId: 'broken', reason: 'model_error', error: 'refused broken' },
      {
        sessionId: undefined,
        reason: 'dependency_failed',
        error: 'its dependency "broken" ended model_error: refused broken',
      },
      {
        sessionId: undefined,
        reason: 'dependency_failed',
        error:
          'its dependency "after-broken" ended dependency_failed: its dependency "broken" ended model_error: refused broken',
      },
      { sessionId: 'free', reason: 'completed', error: undefined },
    ]);
    expect(byId.get('bottom')!.text).toBe('finished bottom after 2 calls');
    // The stopped tasks never ran: no session, no task.started.
    expect([await store.exists('after-broken'), await store.exists('after-after')]).toEqual([false, false]);
    const startedIds = progress.filter((p) => p.type === 'task.started').map((p) => ids[p.index]);
    expect(startedIds.sort()).toEqual(['bottom', 'broken', 'free', 'left', 'right', 'top']);
    expect(progress.some((p) => p.waiting > 0)).toBe(true);
    expect(progress.at(-1)).toMatchObject({ finished: 8, total: 8, waiting: 0, running: 0 });

    // Each dependent was taken after each of its dependencies had ended.
    for (const { id, dependsOn = [] } of tasks) {
      const job = (await queue.getJob(id))!;
      for (const on of dependsOn)
        expect([id, on, job.processedOn! >= (await queue.getJob(on))!.finishedOn!]).toEqual([id, on, true]);
    }
    // A dependent read its dependencies' results as a task of runJob reads them.
    const dependency = (id: string): { id: string; result: JobTaskResult } => ({ id, result: byId.get(id)! });
    expect(await promptOf(store, 'bottom')).toBe(
      promptWithDependencies(taskPrompt('bottom', 2), [dependency('left'), dependency('right')]),
    );
    expect(await promptOf(store, 'left')).toBe(
      promptWithDependencies(taskPrompt('left', 2), [dependency('top')]),
    );
  });

  it('refuses a cycle or an unknown dependency before adding any job', async () => {
    const { queue } = await setup();
    const cycle = enqueueJob(queue, {
      tasks: [
        { id: 'a', prompt: 'a', dependsOn: ['c'] },
        { id: 'b', prompt: 'b', dependsOn: ['a'] },
        { id: 'c', prompt: 'c', dependsOn: ['b'] },
      ],
    });
    await expect(cycle).rejects.toThrow(
      new ConfigError('enqueueJob: the tasks\' dependencies form a cycle: "a" → "c" → "b" → "a"'),
    );
    const unknown = enqueueJob(queue, {
      tasks: [
        { id: 'a', prompt: 'a' },
        { id: 'b', prompt: 'b', dependsOn: ['a', 'z'] },
      ],
    });
    await expect(unknown).rejects.toSatisfy((error) => ConfigError.isInstance(error));
    await expect(unknown).rejects.toThrow(
      'enqueueJob: tasks[1].dependsOn[1] is "z", which no task of the job has as its id',
    );
    expect(await queue.count()).toBe(0);
    expect(await queue.getJobCounts('completed', 'failed', 'delayed')).toEqual({
      completed: 0,
      failed: 0,
      delayed: 0,
    });
  });

  it('promotes by sweep a parked task whose dependency had ended before it was enqueued; runs on failure', async () => {
    const { queue, store } = await setup();
    const first = await enqueueJob(queue, {
      tasks: [
        { id: 'solo', prompt: taskPrompt('solo', 1) },
        { id: 'refused', prompt: taskPrompt('refused', 1, 1) },
      ],
    });
    const ended = await followJob(queue, first.ids, { intervalMs: 50 });
    expect(ended.map((result) => result.reason)).toEqual(['completed', 'model_error']);
    // Enqueued again with dependents: the ended jobs stay as they are (no worker event will come for them).
    const { ids } = await enqueueJob(queue, {
      onDependencyFailure: 'run',
      tasks: [
        { id: 'solo', prompt: taskPrompt('solo', 1) },
        { id: 'refused', prompt: taskPrompt('refused', 1, 1) },
        { id: 'later', prompt: taskPrompt('later', 1), dependsOn: ['solo', 'refused'] },
      ],
    });
    const results = await followJob(queue, ids, { intervalMs: 50 });
    expect(results.map((result) => result.reason)).toEqual(['completed', 'model_error', 'completed']);
    expect(await promptOf(store, 'later')).toBe(
      promptWithDependencies(taskPrompt('later', 1), [
        { id: 'solo', result: ended[0]! },
        { id: 'refused', result: ended[1]! },
      ]),
    );
  });
});
