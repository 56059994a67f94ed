// A task graph on worker processes, one killed mid-graph: 20 tasks with a diamond, a chain and a failure
// with two levels of dependents run on three worker processes; one is SIGKILLed while it runs a call once
// the first dependents have started. Its tasks are resumed elsewhere, the dependents it would have promoted
// are promoted by the others (after a task ends, or by their sweep), and every task ends exactly once with
// the reason `runJob` gives it: completed, model_error, or dependency_failed naming the failure.
// No race decides whether the kill lands mid-call: the victim starts alone and its work calls on leaf tasks
// (ones nothing depends on) never end, so it is surely inside one when the other two start and take the rest.
import { Queue } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { enqueueJob } from '../../src/bullmq/enqueue-job.ts';
import { followJob } from '../../src/bullmq/follow-job.ts';
import { redisFromUrl } from '../../src/bullmq/redis-client.ts';
import { type PgStore, pgStore } from '../../src/postgres/pg-store.ts';
import { promptWithDependencies } from '../../src/runtime/jobs/dependency-prompt.ts';
import type { JobTaskResult } from '../../src/runtime/jobs/job-types.ts';
import { isEvent } from '../../src/session/types.ts';
import { hasServers, noServers, useServers } from '../support/servers.ts';
import { graphTask, taskPrompt } from '../support/task-model.ts';
import {
  type Execution,
  executions,
  startWorkerProcess,
  toolResults,
  useWorkerRecord,
  workerSettings,
} from '../support/worker-processes.ts';

const calls = 3;
const task = (id: string, dependsOn: string[] = [], failures = 0) =>
  graphTask(calls, id, dependsOn, failures);
const tasks = [
  task('top'),
  task('left', ['top']),
  task('right', ['top']),
  task('bottom', ['left', 'right']),
  task('broken', [], 1),
  task('after-broken', ['broken']),
  task('after-after', ['after-broken', 'bottom']),
  task('c1'),
  task('c2', ['c1']),
  task('c3', ['c2']),
  task('c4', ['c3', 'top']),
  ...Array.from({ length: 9 }, (_, index) => task(`free-${index}`)),
];
const dependents = new Set(tasks.filter((entry) => entry.dependsOn).map((entry) => entry.id));
const leaves = tasks
  .map((entry) => entry.id)
  .filter((id) => !tasks.some((entry) => entry.dependsOn?.includes(id)));
const refused = 'its dependency "broken" ended model_error: refused broken';
const expected = (id: string) =>
  id === 'broken'
    ? { reason: 'model_error', error: 'refused broken' }
    : id === 'after-broken'
      ? { reason: 'dependency_failed', error: refused }
      : id === 'after-after'
        ? {
            reason: 'dependency_failed',
            error: `its dependency "after-broken" ended dependency_failed: ${refused}`,
          }
        : { reason: 'completed', error: undefined };

describe.skipIf(!hasServers)(
  `a task graph on workers, one killed${hasServers ? '' : ` — skipped: ${noServers}`}`,
  () => {
    const servers = useServers();
    const record = useWorkerRecord('agentchart-graph-kill');

    it('ends every task once with its reason: completed, model_error, dependency_failed', async () => {
      expect(tasks).toHaveLength(20);
      const url = await servers.postgres.createDatabase('graphkill');
      const store: PgStore = pgStore(url);
      await store.migrate();
      const settings = {
        ...workerSettings(servers, url, { queue: 'graphkill', toolMs: 150, record: record.file }),
        sweepMs: 300,
      };
      const victim = await startWorkerProcess({ ...settings, hold: leaves });
      const started = [victim];
      const connection = redisFromUrl(servers.redis.url);
      const queue = new Queue('graphkill', { connection });
      try {
        const { ids } = await enqueueJob(queue, { tasks });
        let followed = false;
        const follow = followJob(queue, ids, { intervalMs: 100 }).finally(() => {
          followed = true;
        });
        const until = async (what: (lines: Execution[]) => boolean) => {
          while (!followed && !what(await executions(record.file)))
            await new Promise((resolve) => setTimeout(resolve, 10));
          return !followed;
        };
        // Alone, the victim works through the graph until it is inside a call that never ends.
        const victimHolds = (line: Execution) =>
          line.pid === victim.pid && line.what === 'start' && leaves.includes(line.task);
        expect(await until((lines) => lines.some(victimHolds))).toBe(true);
        started.push(...(await Promise.all([1, 2].map(() => startWorkerProcess(settings)))));
        // Killed mid-graph: once a dependent has started, on any worker.
        expect(await until((lines) => lines.some((line) => dependents.has(line.task)))).toBe(true);
        victim.kill('SIGKILL');
        expect((await victim.done).signal).toBe('SIGKILL');
        const results = await follow;

        expect(results.map(({ sessionId, reason, error }) => ({ sessionId, reason, error }))).toEqual(
          ids.map((id) => ({
            sessionId: expected(id).reason === 'dependency_failed' ? undefined : id,
            ...expected(id),
          })),
        );
        const executed = await executions(record.file);
        const starts = executed.filter((line) => line.what === 'start');
        // No call ever ran twice (call ids are unique within a session).
        expect(new Set(starts.map((line) => `${line.task}/${line.callId}`)).size).toBe(starts.length);
        let interruptedTurns = 0;
        for (const id of ids) {
          const job = (await queue.getJob(id))!;
          // Each dependent was taken (for the last time) after each of its dependencies had ended.
          for (const on of tasks.find((entry) => entry.id === id)!.dependsOn ?? [])
            expect([id, on, job.processedOn! >= (await queue.getJob(on))!.finishedOn!]).toEqual([
              id,
              on,
              true,
            ]);
          if (expected(id).reason === 'dependency_failed') {
            expect([id, await store.exists(id)]).toEqual([id, false]);
            continue;
          }
          const log = (await store.load(id)).events; // load checks seq is contiguous from 0
          toolResults(log);
          const ends = log.filter((event) => isEvent(event, 'turn.end')).map((event) => event.data.reason);
          interruptedTurns += ends.filter((reason) => reason === 'interrupted').length;
          // One turn ended the task; a turn before it can only be one the kill cut (closed as interrupted).
          expect([id, ends.at(-1), ends.slice(0, -1).every((reason) => reason === 'interrupted')]).toEqual([
            id,
            expected(id).reason,
            true,
          ]);
        }
        expect(interruptedTurns).toBeGreaterThanOrEqual(1);
        // A dependent of the diamond read both sides' results, as in process.
        const byId = new Map(results.map((result) => [ids[result.index]!, result]));
        const dependency = (id: string): { id: string; result: JobTaskResult } => ({
          id,
          result: byId.get(id)!,
        });
        const { events } = await store.load('bottom');
        const prompt = events.find((event) => isEvent(event, 'user.message'));
        expect(prompt && isEvent(prompt, 'user.message') ? prompt.data.content : undefined).toBe(
          promptWithDependencies(taskPrompt('bottom', calls), [dependency('left'), dependency('right')]),
        );
      } finally {
        for (const child of started.slice(1)) child.kill('SIGTERM');
        await Promise.all(started.slice(1).map((child) => child.done));
        await queue.close();
        connection.disconnect();
        await store.close();
      }
    }, 120_000);
  },
);
