// npm run bench:scale — tasks per second through 1, 2 and 4 worker processes (BullMQ on Redis, sessions in
// PostgreSQL) with a 50 ms scripted model, and the PostgreSQL store's append latency per flush. Starts its
// own Redis and PostgreSQL like the tests (TOOLCHAIN.md §15). Not part of npm test; numbers go to the README.
import { Queue } from 'bullmq';
import { enqueueJob } from '../src/bullmq/enqueue-job.ts';
import { followJob } from '../src/bullmq/follow-job.ts';
import { redisFromUrl } from '../src/bullmq/redis-client.ts';
import { pgStore } from '../src/postgres/pg-store.ts';
import { type RunningChild, startScript } from '../test/support/child-run.ts';
import { startPostgres, startRedis } from '../test/support/servers.ts';
import { makeEvent } from '../test/support/store-contract.ts';
import { taskPrompt } from '../test/support/task-model.ts';

const tasks = 120;
const perWorker = 4;

async function throughput(workers: number, redisUrl: string, databaseUrl: string): Promise<number> {
  const queue = `bench-${workers}`;
  const settings = {
    redis: redisUrl,
    postgres: databaseUrl,
    queue,
    concurrency: perWorker,
    modelMs: 50,
    toolMs: 0,
  };
  const children = await Promise.all(
    Array.from(
      { length: workers },
      () =>
        new Promise<RunningChild>((resolve) => {
          const child = startScript('test/fixtures/scale/worker.ts', {
            args: [JSON.stringify(settings)],
            timeoutMs: 600_000,
            onStdout: (out) => out.includes('ready') && resolve(child),
          });
        }),
    ),
  );
  const connection = redisFromUrl(redisUrl);
  const bull = new Queue(queue, { connection });
  const started = performance.now();
  const { ids } = await enqueueJob(bull, {
    name: queue,
    tasks: Array.from({ length: tasks }, (_, index) => ({ prompt: taskPrompt(`b${index}`, 1) })),
  });
  const results = await followJob(bull, ids, { intervalMs: 20 });
  const seconds = (performance.now() - started) / 1000;
  if (results.some((result) => result.reason !== 'completed'))
    throw new Error('a bench task did not complete');
  for (const child of children) child.kill('SIGTERM');
  await Promise.all(children.map((child) => child.done));
  await bull.close();
  connection.disconnect();
  return tasks / seconds;
}

async function appendLatency(databaseUrl: string): Promise<{ p50: number; p95: number; perEvent: number }> {
  const store = pgStore(databaseUrl, { schema: 'bench_append', migrate: true });
  await store.create('s');
  await store.append('s', [makeEvent(0, 'session.start', { agentId: 's', config: {} })]);
  const times: number[] = [];
  let seq = 1;
  for (let flush = 0; flush < 400; flush++) {
    // A typical flush: five events (a step's start, message, call, started, result).
    const batch = Array.from({ length: 5 }, (_, index) =>
      makeEvent(seq + index, 'inbox.queued', {
        id: `q${seq + index}`,
        channel: 'inject',
        message: 'x'.repeat(200),
      }),
    );
    seq += 5;
    const start = performance.now();
    await store.append('s', batch);
    times.push(performance.now() - start);
  }
  await store.close();
  times.sort((a, b) => a - b);
  const p50 = times[Math.floor(times.length * 0.5)]!;
  return { p50, p95: times[Math.floor(times.length * 0.95)]!, perEvent: p50 / 5 };
}

const [postgres, redis] = await Promise.all([startPostgres(), startRedis()]);
try {
  const databaseUrl = await postgres.createDatabase('bench');
  const migrator = pgStore(databaseUrl);
  await migrator.migrate();
  await migrator.close();
  console.log(
    `${tasks} tasks of 2 model requests (50 ms each) and 1 tool call; ${perWorker} tasks at a time per worker`,
  );
  for (const workers of [1, 2, 4]) {
    console.log(
      `${workers} worker process(es): ${(await throughput(workers, redis.url, databaseUrl)).toFixed(1)} tasks/s`,
    );
  }
  const latency = await appendLatency(databaseUrl);
  console.log(
    `pgStore append, 5 events per flush: p50 ${latency.p50.toFixed(2)} ms, p95 ${latency.p95.toFixed(2)} ms`,
  );
} finally {
  await redis.stop();
  await postgres.stop();
}
