// Redis restarted mid-job and PostgreSQL briefly unavailable: the workers wait and retry (bounded),
// nothing is lost, and the job finishes — every task once, every log valid, no call run twice.
import { Queue } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { enqueueJob } from '../../src/bullmq/enqueue-job.ts';
import { followJob } from '../../src/bullmq/follow-job.ts';
import { redisFromUrl } from '../../src/bullmq/redis-client.ts';
import { pgStore } from '../../src/postgres/pg-store.ts';
import { isEvent } from '../../src/session/types.ts';
import { hasServers, noServers, useServers } from '../support/servers.ts';
import { taskPrompt } from '../support/task-model.ts';
import {
  executions,
  startWorkerProcess,
  toolResults,
  useWorkerRecord,
  workerSettings,
} from '../support/worker-processes.ts';

const tasks = 12;
const callsPerTask = 4;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!hasServers)(
  `servers that go away mid-job${hasServers ? '' : ` — skipped: ${noServers}`}`,
  () => {
    // Redis keeps every write in its append-only file, as a production Redis for a queue would.
    const servers = useServers({ redis: { persistent: true } });
    const record = useWorkerRecord('agentchart-outage');

    it('finishes the job after a Redis restart and a PostgreSQL outage, losing nothing', async () => {
      const url = await servers.postgres.createDatabase('outage');
      const store = pgStore(url);
      await store.migrate();
      const settings = workerSettings(servers, url, { queue: 'outage', toolMs: 120, record: record.file });
      const workers = await Promise.all([startWorkerProcess(settings), startWorkerProcess(settings)]);
      const connection = redisFromUrl(servers.redis.url);
      connection.on('error', () => {});
      const queue = new Queue('outage', { connection });
      queue.on('error', () => {}); // Redis is down for a moment on purpose
      try {
        const { ids } = await enqueueJob(queue, {
          name: 'outage',
          tasks: Array.from({ length: tasks }, (_, index) => ({
            prompt: taskPrompt(`t${index}`, callsPerTask),
          })),
        });
        const follow = followJob(queue, ids, { intervalMs: 100 });
        const ran = async () => (await executions(record.file)).filter((line) => line.what === 'end').length;
        while ((await ran()) < 4) await sleep(20);
        await servers.redis.pause(); // SIGKILL
        await sleep(400);
        await servers.redis.resume();
        const afterRedis = await ran();
        while ((await ran()) < afterRedis + 4) await sleep(20);
        await servers.postgres.pause();
        await sleep(1000);
        await servers.postgres.resume();
        const results = await follow;

        expect(results.map((result) => [result.reason, result.text])).toEqual(
          ids.map((_, index) => ['completed', `finished t${index} after ${callsPerTask} calls`]),
        );
        const starts = (await executions(record.file)).filter((line) => line.what === 'start');
        expect(new Set(starts.map((line) => `${line.task}/${line.callId}`)).size).toBe(starts.length);
        for (const [index, id] of ids.entries()) {
          const log = (await store.load(id)).events;
          const results = toolResults(log);
          const ends = log.filter((event) => isEvent(event, 'turn.end'));
          expect(ends.filter((event) => event.data.reason === 'completed').length).toBe(1);
          // Nobody died: every call that was asked for ran to an ok result, once.
          expect([...results.values()].filter((result) => result.outcome !== 'ok')).toEqual([]);
          const ranFor = starts.filter((line) => line.task === `t${index}`).map((line) => line.n);
          expect(ranFor.sort()).toEqual([1, 2, 3, 4]);
        }
        for (const worker of workers) worker.kill('SIGTERM');
        expect((await Promise.all(workers.map((worker) => worker.done))).map((run) => run.code)).toEqual([
          0, 0,
        ]);
      } finally {
        await queue.close();
        connection.disconnect();
        await store.close();
      }
    }, 90_000);
  },
);
