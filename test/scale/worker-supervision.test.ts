// Supervised tasks on BullMQ workers: a task's restarts are counted in its own log, so the budget holds
// across workers. In process, a turn that ends `model_error` is restarted (twice, then it succeeds; or
// until its budget is spent). As real processes, a worker SIGKILLed mid-task is a restart the next worker
// makes (logged, told as progress), and a second death with the budget spent ends the task `interrupted`.
import { Queue, QueueEvents } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueJob } from '../../src/bullmq/enqueue-job.ts';
import { followJob } from '../../src/bullmq/follow-job.ts';
import { redisFromUrl } from '../../src/bullmq/redis-client.ts';
import { startWorker } from '../../src/bullmq/start-worker.ts';
import type { TaskProgress } from '../../src/bullmq/task-queue.ts';
import { pgStore } from '../../src/postgres/pg-store.ts';
import { isEvent, type LogEvent } from '../../src/session/types.ts';
import { hasServers, noServers, type SuiteServers, useServers } from '../support/servers.ts';
import { taskModel, taskPrompt, workTool } from '../support/task-model.ts';
import {
  executions,
  startWorkerProcess,
  useWorkerRecord,
  workerSettings,
} from '../support/worker-processes.ts';

let servers: SuiteServers;
let databaseUrl = '';
const open: Array<() => Promise<unknown>> = [];
const supervision = { restart: 'on-failure', maxRestarts: 2, backoffMs: 0 } as const;

/** A queue, the progress every update of its jobs told (in order, from BullMQ's event stream), and a store. */
async function queueOf(name: string) {
  const store = pgStore(databaseUrl, { schema: name });
  await store.migrate();
  const connection = redisFromUrl(servers.redis.url);
  const queue = new Queue(name, { connection });
  const eventsConnection = redisFromUrl(servers.redis.url);
  const events = new QueueEvents(name, { connection: eventsConnection });
  await events.waitUntilReady();
  const told: TaskProgress[] = [];
  events.on('progress', ({ data }) => told.push(data as TaskProgress));
  open.push(async () => {
    await events.close();
    await queue.close();
    connection.disconnect();
    eventsConnection.disconnect();
    await store.close();
  });
  return { store, queue, told };
}

const restartsOf = (events: readonly LogEvent[]) =>
  events.flatMap((event) => (isEvent(event, 'session.restarted') ? [event.data] : []));
const endsOf = (events: readonly LogEvent[]) =>
  events.flatMap((event) => (isEvent(event, 'turn.end') ? [event.data.reason] : []));

describe.skipIf(!hasServers)(
  `supervised tasks on workers${hasServers ? '' : ` — skipped: ${noServers}`}`,
  () => {
    servers = useServers();
    const record = useWorkerRecord('agentchart-supervised');
    beforeAll(async () => {
      databaseUrl = await servers.postgres.createDatabase('supervised');
    });
    afterAll(async () => {
      for (const close of open.reverse()) await close();
    }, 30_000);

    it('restarts a task whose turns end model_error from its log: twice, then it completes; or spent', async () => {
      const { store, queue, told } = await queueOf('flaky');
      const worker = await startWorker({
        queue: 'flaky',
        connection: servers.redis.url,
        system: { model: taskModel(1), tools: [workTool(1)], store },
        concurrency: 2,
      });
      open.push(() => worker.close());
      const { ids } = await enqueueJob(queue, {
        supervision,
        tasks: [
          { id: 'twice', prompt: taskPrompt('twice', 1, 2) },
          { id: 'spent', prompt: taskPrompt('spent', 1, 5), supervision: { ...supervision, maxRestarts: 1 } },
        ],
      });
      const [twice, spent] = await followJob(queue, ids, { intervalMs: 50 });
      expect(twice).toMatchObject({ reason: 'completed', text: 'finished twice after 1 calls', restarts: 2 });
      expect(spent).toMatchObject({ reason: 'model_error', error: 'refused spent', restarts: 1 });

      const logOf = async (id: string) => (await store.load(id)).events;
      expect(endsOf(await logOf('twice'))).toEqual(['model_error', 'model_error', 'completed']);
      expect(restartsOf(await logOf('twice'))).toEqual([
        { attempt: 1, reason: 'model_error', error: 'refused twice' },
        { attempt: 2, reason: 'model_error', error: 'refused twice' },
      ]);
      expect(endsOf(await logOf('spent'))).toEqual(['model_error', 'model_error']);
      expect(restartsOf(await logOf('spent'))).toEqual([
        { attempt: 1, reason: 'model_error', error: 'refused spent' },
      ]);
      // Every restart was told in the job's progress, after its start, in order.
      const progressOf = (id: string) =>
        told
          .filter((progress) => progress.sessionId === id)
          .map((progress) =>
            progress.type === 'task.started' ? progress.type : `${progress.type} ${progress.attempt}`,
          );
      expect(progressOf('twice')).toEqual(['task.started', 'task.restarted 1', 'task.restarted 2']);
      expect(progressOf('spent')).toEqual(['task.started', 'task.restarted 1']);
    });

    it('a worker killed mid-task is a restart the next one makes; a second death with none left ends it', async () => {
      const { store, queue, told } = await queueOf('dying');
      const settings = workerSettings(servers, databaseUrl, {
        queue: 'dying',
        toolMs: 200,
        record: record.file,
      });
      const withSchema = { ...settings, schema: 'dying' };
      const { ids } = await enqueueJob(queue, {
        tasks: [{ id: 'dies', prompt: taskPrompt('dies', 6) }],
        supervision: { ...supervision, maxRestarts: 1 },
      });
      const follow = followJob(queue, ids, { intervalMs: 100 });
      /** Starts a worker and kills it once a call of the task runs on it. */
      const killWhileRunning = async () => {
        const worker = await startWorkerProcess(withSchema);
        for (;;) {
          const lines = (await executions(record.file)).filter((line) => line.pid === worker.pid);
          if (lines.some((line) => line.what === 'start')) break;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        worker.kill('SIGKILL');
        expect((await worker.done).signal).toBe('SIGKILL');
      };
      await killWhileRunning();
      await killWhileRunning();
      const last = await startWorkerProcess(withSchema);
      const [result] = await follow;
      last.kill('SIGTERM');
      await last.done;

      expect(result).toMatchObject({ reason: 'interrupted', restarts: 1 });
      expect(result!.error).toMatch(/worker running the task stopped .*restart\(s\) are spent/);
      const { events } = await store.load('dies');
      expect(restartsOf(events)).toEqual([
        { attempt: 1, reason: 'crashed', error: 'the worker running the task stopped before its turn ended' },
      ]);
      // The first worker's turn and the restarted one were both cut; nothing was run after the budget.
      expect(endsOf(events)).toEqual(['interrupted', 'interrupted']);
      const kinds = told.map((progress) => progress.type);
      expect(kinds.filter((kind) => kind === 'task.restarted')).toEqual(['task.restarted']);
      expect(told.find((progress) => progress.type === 'task.restarted')).toMatchObject({
        attempt: 1,
        reason: 'crashed',
      });
    }, 90_000);
  },
);
