// Jobs on BullMQ with sessions in PostgreSQL, in this process: one job per task with the session id as
// job id, results in runJob's shape, progress mirroring runJob's, idempotent enqueue, resume of a task
// whose session exists, and cancel of a running task from anywhere.
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cancelTask, enqueueJob } from '../../src/bullmq/enqueue-job.ts';
import { followJob } from '../../src/bullmq/follow-job.ts';
import { redisFromUrl } from '../../src/bullmq/redis-client.ts';
import { startWorker } from '../../src/bullmq/start-worker.ts';
import { pgStore } from '../../src/postgres/pg-store.ts';
import { createAgentSystem } from '../../src/runtime/create-agent-system.ts';
import { continueMessage } from '../../src/runtime/jobs/durable-task.ts';
import type { JobProgress } from '../../src/runtime/jobs/job-types.ts';
import { isEvent } from '../../src/session/types.ts';
import { hasServers, noServers, type SuiteServers, useServers } from '../support/servers.ts';
import { taskModel, taskPrompt, workTool } from '../support/task-model.ts';

let servers: SuiteServers;
let databaseUrl = '';
const open: Array<() => Promise<unknown>> = [];
let queueCounter = 0;

async function setup(options: { toolMs?: number } = {}) {
  const name = `q${++queueCounter}`;
  const store = pgStore(databaseUrl, { schema: name, migrate: true });
  const connection = redisFromUrl(servers.redis.url);
  const queue = new Queue(name, { connection });
  const worker = await startWorker({
    queue: name,
    connection: servers.redis.url,
    system: { model: taskModel(5), tools: [workTool(options.toolMs ?? 5)], store },
    concurrency: 3,
  });
  open.push(async () => {
    await worker.close();
    await queue.close();
    connection.disconnect();
    await store.close();
  });
  return { name, store, queue, worker };
}

describe.skipIf(!hasServers)(`jobs on BullMQ workers${hasServers ? '' : ` — skipped: ${noServers}`}`, () => {
  servers = useServers();
  beforeAll(async () => {
    databaseUrl = await servers.postgres.createDatabase('jobs');
  });
  afterAll(async () => {
    for (const close of open.reverse()) await close();
  }, 30_000);

  it('runs one job per task (job id = session id) and returns runJob-shaped results and progress', async () => {
    const { queue, store } = await setup();
    const tasks = [0, 1, 2, 3].map((index) => ({ prompt: taskPrompt(`t${index}`, index) }));
    const { ids } = await enqueueJob(queue, { name: 'fix', tasks });
    expect(ids).toEqual(['fix-0', 'fix-1', 'fix-2', 'fix-3']);
    const progress: JobProgress[] = [];
    const results = await followJob(queue, ids, { onProgress: (p) => progress.push(p), intervalMs: 50 });
    expect(results.map(({ index, sessionId, reason, text }) => ({ index, sessionId, reason, text }))).toEqual(
      ids.map((id, index) => ({
        index,
        sessionId: id,
        reason: 'completed',
        text: `finished t${index} after ${index} calls`,
      })),
    );
    expect(results.map((result) => result.usage.inputTokens)).toEqual([10, 20, 30, 40]);
    // Each task starts once and finishes once; the counters end at 4 of 4.
    expect(
      progress
        .filter((p) => p.type === 'task.started')
        .map((p) => p.index)
        .sort(),
    ).toEqual([0, 1, 2, 3]);
    expect(
      progress
        .filter((p) => p.type === 'task.finished')
        .map((p) => p.index)
        .sort(),
    ).toEqual([0, 1, 2, 3]);
    expect(progress.at(-1)).toMatchObject({ type: 'task.finished', running: 0, finished: 4, total: 4 });
    expect(await store.list()).toEqual(ids);

    // Enqueueing the same tasks again adds nothing and runs nothing again.
    await enqueueJob(queue, { name: 'fix', tasks });
    expect(await queue.getJobCounts('completed', 'waiting', 'active')).toEqual({
      completed: 4,
      waiting: 0,
      active: 0,
    });
    const again = await followJob(queue, ids, { intervalMs: 50 });
    expect(again).toEqual(results);
    for (const id of ids) {
      const { events } = await store.load(id);
      expect(events.filter((event) => isEvent(event, 'turn.end')).length).toBe(1);
    }
  });

  it('resumes a task whose session a dead start left mid-turn: repair, continue, no call run twice', async () => {
    const { queue, store } = await setup();
    const record = join(await mkdtemp(join(tmpdir(), 'agentchart-resume-')), 'record');
    // A first start elsewhere ran one of three calls; its log up to that result is what a killed worker
    // leaves behind (the turn open, nothing after the result).
    const elsewhere = pgStore(databaseUrl, { schema: 'elsewhere', migrate: true });
    const first = createAgentSystem({ model: taskModel(1), tools: [workTool(1, record)], store: elsewhere });
    const agent = await first.createAgent({ id: 'half' });
    const run = agent.run(taskPrompt('half', 3));
    const cut = await new Promise<number>((resolve) => {
      const stop = agent.onLog((event) => {
        if (isEvent(event, 'tool.result')) {
          stop();
          resolve(event.seq);
        }
      });
    });
    agent.cancel('user');
    await run;
    await first.dispose();
    const prefix = (await elsewhere.load('half')).events.slice(0, cut + 1);
    await elsewhere.close();
    await store.create('half');
    await store.append('half', prefix);

    const { ids } = await enqueueJob(queue, { tasks: [{ id: 'half', prompt: taskPrompt('half', 3) }] });
    const [result] = await followJob(queue, ids, { intervalMs: 50 });
    expect(result).toMatchObject({
      sessionId: 'half',
      reason: 'completed',
      text: 'finished half after 3 calls',
    });
    const { events } = await store.load('half');
    expect(events.slice(0, prefix.length)).toEqual(prefix);
    expect(events.filter((event) => isEvent(event, 'turn.end')).map((event) => event.data.reason)).toEqual([
      'interrupted',
      'completed',
    ]);
    // The continued turn was told why, and n = 1 ran once (in the first start); 2 and 3 once each here.
    expect(
      events.some((event) => isEvent(event, 'user.message') && event.data.content === continueMessage),
    ).toBe(true);
    const ends = (await readFile(record, 'utf8')).split('\n').filter((line) => line.startsWith('end'));
    expect(ends.map((line) => line.split(' ')[2])).toEqual(['1']);
  });

  it('cancels a running task from another client: its agent stops, the task ends canceled', async () => {
    const { queue, store } = await setup({ toolMs: 400 });
    const { ids } = await enqueueJob(queue, {
      tasks: [
        { id: 'slow', prompt: taskPrompt('slow', 20) },
        { id: 'quick', prompt: taskPrompt('quick', 1) },
      ],
    });
    const follow = followJob(queue, ids, {
      intervalMs: 50,
      onProgress: (p) => {
        if (p.type === 'task.started' && p.index === 0) void cancelTask(queue, 'slow');
      },
    });
    const [slow, quick] = await follow;
    expect(slow).toMatchObject({ sessionId: 'slow', reason: 'canceled' });
    expect(quick).toMatchObject({ sessionId: 'quick', reason: 'completed' });
    const { events } = await store.load('slow');
    const calls = events.filter((event) => isEvent(event, 'tool.call')).length;
    expect([calls < 20, events.filter((event) => isEvent(event, 'tool.result')).length]).toEqual([
      true,
      calls,
    ]);
    // A waiting task is removed from the queue instead.
    await queue.pause();
    const { ids: later } = await enqueueJob(queue, {
      tasks: [{ id: 'never', prompt: taskPrompt('never', 1) }],
    });
    expect(await cancelTask(queue, 'never')).toBe('removed');
    await queue.resume();
    expect(await followJob(queue, later, { intervalMs: 50 })).toMatchObject([{ reason: 'canceled' }]);
    expect(await store.exists('never')).toBe(false);
  });
});
