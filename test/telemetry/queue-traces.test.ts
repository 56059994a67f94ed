// A job on BullMQ is one trace: enqueueJob makes the job's span and puts its W3C traceparent in every
// task's data; the worker's agents continue it. Real Redis (a child of this test), real BullMQ, the real
// OpenTelemetry SDK exporting over OTLP/HTTP to a receiver on 127.0.0.1.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueJob } from '../../src/bullmq/enqueue-job.ts';
import { followJob } from '../../src/bullmq/follow-job.ts';
import { redisFromUrl } from '../../src/bullmq/redis-client.ts';
import { startWorker } from '../../src/bullmq/start-worker.ts';
import { fileStore } from '../../src/session/file-store.ts';
import { spanTree } from '../support/otlp-receiver.ts';
import { hasServers, noServers, type RedisServer, startRedis } from '../support/servers.ts';
import { taskModel, taskPrompt, workTool } from '../support/task-model.ts';
import { startTracedBackend, type TracedBackend } from '../support/traced-provider.ts';

let redis: RedisServer;
let backend: TracedBackend;
let sessions: string;

describe.skipIf(!hasServers)(
  `traces of jobs on BullMQ${hasServers ? '' : ` — skipped: ${noServers}`}`,
  () => {
    beforeAll(async () => {
      redis = await startRedis();
      backend = await startTracedBackend();
      sessions = await mkdtemp(join(tmpdir(), 'agentchart-queue-traces-'));
    });
    afterAll(async () => {
      await backend?.close();
      await redis?.stop();
      await rm(sessions, { recursive: true, force: true });
    });

    it('hangs every task agent of a queued job under the job span, through the task data', async () => {
      const connection = redisFromUrl(redis.url);
      const queue = new Queue('traced', { connection });
      const worker = await startWorker({
        queue: 'traced',
        connection: redis.url,
        system: {
          model: taskModel(1),
          tools: [workTool(1)],
          store: fileStore(sessions),
          telemetry: { tracerProvider: backend.provider },
        },
      });
      try {
        const tasks = [{ prompt: taskPrompt('a', 1) }, { prompt: taskPrompt('b', 0) }];
        const { ids } = await enqueueJob(queue, {
          name: 'traced',
          tasks,
          telemetry: { tracerProvider: backend.provider },
        });
        const results = await followJob(queue, ids, { intervalMs: 20 });
        expect(results.map((result) => result.reason)).toEqual(['completed', 'completed']);
        const data = await Promise.all(ids.map(async (id) => (await queue.getJob(id))?.data.traceParent));
        await worker.close();
        await backend.provider.forceFlush();
        const { spans } = backend.receiver;
        const job = spans.find((span) => span.name === 'job')!;
        // PRODUCER is 4 in OTLP (SPAN_KIND_PRODUCER).
        expect([job.kind, job.attributes]).toEqual([
          4,
          { 'agentchart.job.tasks': 2, 'agentchart.job.name': 'traced' },
        ]);
        expect(data).toEqual([0, 1].map(() => `00-${job.traceId}-${job.spanId}-01`));
        const answer: [string, []] = ['chat task-model', []];
        expect(spanTree(spans)).toEqual([
          [
            'job',
            [
              [
                'invoke_agent agentchart',
                [
                  [
                    'turn',
                    [
                      ['step', [answer, ['execute_tool work', []]]],
                      ['step', [answer]],
                    ],
                  ],
                ],
              ],
              ['invoke_agent agentchart', [['turn', [['step', [answer]]]]]],
            ],
          ],
        ]);
        expect(new Set(spans.map((span) => span.traceId))).toEqual(new Set([job.traceId]));
      } finally {
        await worker.close();
        await queue.close();
        connection.disconnect();
      }
    });
  },
);
