// BullMQ workers with sessions in PostgreSQL: `agentchart worker` (a child process against the local
// OpenAI-compatible server) runs the tasks `agentchart job FILE --redis --postgres` enqueued, on real
// redis-server and PostgreSQL started by the test. The session is read back from PostgreSQL: checked there
// (`replay ID --postgres URL --check`), exported to a .jsonl (`--export`) and checked elsewhere like every
// other origin (origin-kit), and with `expectReplay` on the events the store gives.
import { cp, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pgStore } from '../../src/postgres/pg-store.ts';
import { expectReplay } from '../../src/testing.ts';
import { runBuiltCliProcess, startCliProcess } from '../support/child-run.ts';
import { wireToolCall as call, useCliWorld } from '../support/cli-world.ts';
import { hasServers, noServers, useServers } from '../support/servers.ts';
import { checkEverywhere, eventsOf, tempFolder } from './origin-kit.ts';

describe.skipIf(!hasServers)(
  `replay of a worker's session in PostgreSQL${hasServers ? '' : ` — skipped: ${noServers}`}`,
  () => {
    const world = useCliWorld({ prefix: 'agentchart-origin-worker', home: 'unset', perFile: true });
    const servers = useServers();

    it('replays from the store, and from its export in another folder', async () => {
      const url = await servers.postgres.createDatabase('origins');
      const { server: model, workspace, env } = world;
      expect((await runBuiltCliProcess(['migrate', '--postgres', url], { env })).code).toBe(0);
      await writeFile(join(workspace, 'a.txt'), 'one\n');
      const start = await tempFolder('worker-start');
      await cp(workspace, start, { recursive: true });
      model.reply({ turn: { toolCalls: [call('r1', 'read_file', { path: 'a.txt' })] } });
      model.reply({ turn: { toolCalls: [call('w1', 'write_file', { path: 'b.txt', content: 'two\n' })] } });
      model.reply({ turn: { text: ['Nobody let me write b.txt.'] } });
      const worker = startCliProcess(
        ['worker', '--redis', servers.redis.url, '--postgres', url, '--cwd', workspace],
        {
          env,
          timeoutMs: 60_000,
        },
      );
      const jobFile = join(await tempFolder('worker-job'), 'jobs.json');
      await writeFile(jobFile, JSON.stringify({ tasks: [{ prompt: 'read a, write b' }] }));
      const job = await runBuiltCliProcess(
        ['job', jobFile, '--redis', servers.redis.url, '--postgres', url],
        {
          env,
          timeoutMs: 60_000,
        },
      );
      worker.kill('SIGTERM');
      expect((await worker.done).code).toBe(0);
      expect([job.code, job.stderr]).toEqual([0, '']);
      const id = /session (jobs-[0-9a-f]+-0)/.exec(job.stdout)?.[1];
      expect(id).toBeDefined();

      // Checked where it is kept: the session id and the store, from any folder.
      const elsewhere = await tempFolder('worker-elsewhere');
      const replayEnv = { HOME: await tempFolder('worker-home'), ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '' };
      const inStore = await runBuiltCliProcess(['replay', id!, '--postgres', url, '--check'], {
        env: replayEnv,
        cwd: elsewhere,
        timeoutMs: 60_000,
      });
      const store = pgStore(url);
      const { events } = await store.load(id!).finally(() => store.close());
      expect({ stdout: inStore.stdout, stderr: inStore.stderr, code: inStore.code }).toEqual({
        stdout: `Replay check passed: session ${id} in PostgreSQL — ${events.length} events written again, byte for byte.\n`,
        stderr: '',
        code: 0,
      });
      await expectReplay(events);
      expect(eventsOf(events, 'approval.decided').map((event) => [event.data.callId, event.data.by])).toEqual(
        [
          ['r1', 'mode'],
          ['w1', 'headless'],
        ],
      );

      // Exported, it is a log file like any other: checked in another folder with the workspace gone.
      const exported = join(await tempFolder('worker-export'), 'worker.jsonl');
      const exporting = await runBuiltCliProcess(['replay', id!, '--postgres', url, '--export', exported], {
        env: replayEnv,
        cwd: elsewhere,
        timeoutMs: 60_000,
      });
      expect([exporting.code, exporting.stderr]).toEqual([0, '']);
      // Without --check it is the transcript, as for a file.
      expect(exporting.stdout.split('\n')[0]).toBe(
        `Replay of session ${id} in PostgreSQL (${events.length} events, recorded; no model is called)`,
      );
      const again = await runBuiltCliProcess(['replay', id!, '--postgres', url, '--export', exported], {
        env: replayEnv,
        cwd: elsewhere,
      });
      expect([again.code, again.stderr]).toEqual([
        1,
        `agentchart: --export ${exported} exists already: give a new file [cli]\n`,
      ]);
      const missing = await runBuiltCliProcess(['replay', 'jobs-nosuch-0', '--postgres', url, '--check'], {
        env: replayEnv,
        cwd: elsewhere,
      });
      expect([missing.code, missing.stdout]).toEqual([2, '']);
      expect(missing.stderr).toContain('jobs-nosuch-0');
      const restore = async () => {
        const restored = await tempFolder('worker-restored');
        await cp(start, restored, { recursive: true });
        return restored;
      };
      const checked = await checkEverywhere({
        log: exported,
        restore,
        tamper: {
          type: 'approval.decided',
          select: (event) => event.data.callId === 'w1',
          path: ['by'],
          value: 'rule',
        },
      });
      expect(checked).toEqual(events);
    }, 180_000);
  },
);
