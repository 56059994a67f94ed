// Kill a worker mid-task: three worker processes share a job of 30 tasks whose model and tool take real
// time; one is SIGKILLed while it runs tool calls. BullMQ hands its tasks to the others after the stalled
// check, and they resume the sessions from PostgreSQL. Every task completes exactly once, every log is
// valid, and no tool call that had completed before the kill runs again.
import { Queue, QueueEvents } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { enqueueJob } from '../../src/bullmq/enqueue-job.ts';
import { followJob } from '../../src/bullmq/follow-job.ts';
import { redisFromUrl } from '../../src/bullmq/redis-client.ts';
import { type PgStore, pgStore } from '../../src/postgres/pg-store.ts';
import { isEvent, type LogEvent } from '../../src/session/types.ts';
import { hasServers, noServers, useServers } from '../support/servers.ts';
import { taskPrompt } from '../support/task-model.ts';
import {
  type Execution,
  executions,
  startWorkerProcess,
  toolResults,
  useWorkerRecord,
  workerSettings,
} from '../support/worker-processes.ts';

const workers = 3;
const tasks = 30;
const callsPerTask = 4;

describe.skipIf(!hasServers)(
  `a worker killed mid-task${hasServers ? '' : ` — skipped: ${noServers}`}`,
  () => {
    const servers = useServers();
    const record = useWorkerRecord('agentchart-kill');

    it('hands the dead worker’s tasks to the others, which resume them: each completes once, nothing runs twice', async () => {
      const url = await servers.postgres.createDatabase('kill');
      const store: PgStore = pgStore(url);
      await store.migrate();
      const settings = workerSettings(servers, url, { queue: 'kill', toolMs: 150, record: record.file });
      const started = await Promise.all(Array.from({ length: workers }, () => startWorkerProcess(settings)));
      const victim = started[0]!;
      const connection = redisFromUrl(servers.redis.url);
      const queue = new Queue('kill', { connection });
      const eventsConnection = redisFromUrl(servers.redis.url);
      const events = new QueueEvents('kill', { connection: eventsConnection });
      await events.waitUntilReady();
      const completions = new Map<string, number>();
      events.on('completed', ({ jobId }) => completions.set(jobId, (completions.get(jobId) ?? 0) + 1));
      try {
        const { ids } = await enqueueJob(queue, {
          name: 'kill',
          tasks: Array.from({ length: tasks }, (_, index) => ({
            prompt: taskPrompt(`t${index}`, callsPerTask),
          })),
        });
        const follow = followJob(queue, ids, { intervalMs: 100 });
        // Kill the victim while at least two of its tool calls run (started, not ended).
        let running: Execution[] = [];
        while (running.length < 2) {
          await new Promise((resolve) => setTimeout(resolve, 10));
          const lines = (await executions(record.file)).filter((line) => line.pid === victim.pid);
          const ended = new Set(lines.filter((line) => line.what === 'end').map((line) => line.callId));
          running = lines.filter((line) => line.what === 'start' && !ended.has(line.callId));
        }
        victim.kill('SIGKILL');
        const results = await follow;
        expect((await victim.done).signal).toBe('SIGKILL');

        expect(results.map((result) => [result.reason, result.text])).toEqual(
          ids.map((_, index) => ['completed', `finished t${index} after ${callsPerTask} calls`]),
        );
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(ids.filter((id) => completions.get(id) !== 1)).toEqual([]);

        const executed = await executions(record.file);
        const starts = executed.filter((line) => line.what === 'start');
        // No call ever ran twice (call ids are unique within a session).
        expect(new Set(starts.map((line) => `${line.task}/${line.callId}`)).size).toBe(starts.length);
        let interruptedTurns = 0;
        let unknown = 0;
        for (const [index, id] of ids.entries()) {
          const log = (await store.load(id)).events; // load checks seq is contiguous from 0
          const results = toolResults(log);
          const ends = log.filter((event) => isEvent(event, 'turn.end'));
          expect(ends.filter((event) => event.data.reason === 'completed').length).toBe(1);
          expect(ends.at(-1)?.data.reason).toBe('completed');
          const interrupted = new Set(
            ends.filter((event) => event.data.reason === 'interrupted').map((event) => event.turn),
          );
          interruptedTurns += interrupted.size;
          for (const result of results.values()) {
            expect(['ok', 'unknown', 'not_started']).toContain(result.outcome);
            // Lost outcomes only where the kill hit: in a turn that resume closed as interrupted.
            if (result.outcome !== 'ok') expect(interrupted.has(result.turn)).toBe(true);
            if (result.outcome === 'unknown') unknown++;
          }
          // Every n has exactly one ok result, and after it no call for that n was made or run again.
          const task = `t${index}`;
          for (let n = 1; n <= callsPerTask; n++) {
            const calls = log.filter(
              (event) => isEvent(event, 'tool.call') && (event.data.input as { n: number }).n === n,
            ) as Array<LogEvent & { type: 'tool.call'; data: { callId: string } }>;
            const ok = calls.filter((call) => results.get(call.data.callId)?.outcome === 'ok');
            expect(ok.length).toBe(1);
            expect(calls.at(-1)).toBe(ok[0]);
            const ranFor = starts
              .filter((line) => line.task === task && line.n === n)
              .map((line) => line.callId);
            const okSeq = results.get(ok[0]!.data.callId)!.seq;
            const ranAfterOk = ranFor.filter(
              (callId) =>
                log.find((event) => isEvent(event, 'tool.call') && event.data.callId === callId)!.seq > okSeq,
            );
            expect(ranAfterOk).toEqual([]);
          }
        }
        // The kill hit running calls: their outcome was lost, and their turns were resumed elsewhere.
        expect(unknown).toBeGreaterThanOrEqual(2);
        expect(interruptedTurns).toBeGreaterThanOrEqual(1);
      } finally {
        for (const child of started.slice(1)) child.kill('SIGTERM');
        await Promise.all(started.slice(1).map((child) => child.done));
        await events.close();
        await queue.close();
        connection.disconnect();
        eventsConnection.disconnect();
        await store.close();
      }
    }, 90_000);
  },
);
