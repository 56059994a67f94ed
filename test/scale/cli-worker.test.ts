// The CLI across processes: `agentchart migrate`, a worker process (`agentchart worker`) whose model is a
// local OpenAI-compatible server, and `agentchart job FILE --redis --postgres` enqueueing and following,
// a job file's task graph too, and a worker that follows its workspace's settings, CLAUDE.md and skills.
import { access, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pgStore } from '../../src/postgres/pg-store.ts';
import { isEvent } from '../../src/session/types.ts';
import { runCliProcess, startCliProcess } from '../support/child-run.ts';
import { useCliWorld, wireToolCall } from '../support/cli-world.ts';
import { hasServers, noServers, useServers } from '../support/servers.ts';

describe.skipIf(!hasServers)(
  `agentchart worker and job --redis --postgres${hasServers ? '' : ` — skipped: ${noServers}`}`,
  () => {
    const world = useCliWorld({ prefix: 'agentchart-cli-worker', home: 'unset', perFile: true });
    const servers = useServers();

    it('migrates, runs a job of two tasks on a worker process, and follows it to the end', async () => {
      const url = await servers.postgres.createDatabase('cli');
      const { server: model, workspace, env } = world;
      const migrated = await runCliProcess(['migrate', '--postgres', url], { env });
      expect([migrated.code, migrated.stdout]).toEqual([0, 'agentchart: migrated schema v0 → v1\n']);
      model.reply({ turn: { text: ['First done.'] } });
      model.reply({ turn: { text: ['Second done.'] } });
      const worker = startCliProcess(
        ['worker', '--redis', servers.redis.url, '--postgres', url, '--cwd', workspace],
        {
          env,
          timeoutMs: 60_000,
        },
      );
      await writeFile(
        join(workspace, 'jobs.json'),
        JSON.stringify({ tasks: [{ prompt: 'one' }, { prompt: 'two' }] }),
      );
      const file = join(workspace, 'jobs.json');
      const job = await runCliProcess(['job', file, '--redis', servers.redis.url, '--postgres', url], {
        env,
        timeoutMs: 60_000,
      });
      expect([job.code, job.stderr]).toEqual([0, '']);
      worker.kill('SIGTERM');
      const stopped = await worker.done;
      expect([stopped.code, stopped.stderr]).toEqual([
        0,
        expect.stringMatching(
          /^agentchart: worker on queue "agentchart" with .*\nagentchart: stopping: running tasks finish first\n$/,
        ),
      ]);
      expect(job.code).toBe(0);
      const lines = job.stdout.split('\n');
      const id = /\(ids (jobs-[0-9a-f]+)-0 …\)/.exec(lines[0]!)?.[1];
      expect(lines).toEqual([
        `agentchart: job ${file}: 2 task(s) on queue "agentchart" (ids ${id}-0 …)`,
        `[1/2] task 0 completed · session ${id}-0 · First done.`,
        `[2/2] task 1 completed · session ${id}-1 · Second done.`,
        expect.stringMatching(/^agentchart: 2 task\(s\): 2 completed · \d+ input \/ \d+ output tokens$/),
        '',
      ]);
      // Enqueued again: the same ids, nothing runs twice (the model has no third reply).
      const again = await runCliProcess(['job', file, '--redis', servers.redis.url, '--postgres', url], {
        env,
      });
      expect(again.stdout.split('\n').slice(1, 3)).toEqual(lines.slice(1, 3));
      const store = pgStore(url);
      try {
        expect(await store.list()).toEqual([`${id}-0`, `${id}-1`]);
        const { events } = await store.load(`${id}-1`);
        expect(
          events.filter((event) => isEvent(event, 'user.message')).map((event) => event.data.content),
        ).toEqual(['two']);
      } finally {
        await store.close();
      }
      const missing = await runCliProcess(['job', file, '--redis', servers.redis.url], {
        env,
      });
      expect([missing.code, missing.stderr]).toEqual([
        2,
        'agentchart: job needs both --redis URL and --postgres URL (or neither, to run the job in this process) [usage]\n',
      ]);
    }, 60_000);

    it('runs a job file’s task graph on a worker: printed, the dependent after its dependency', async () => {
      const url = await servers.postgres.createDatabase('cligraph');
      const { server: model, workspace, env } = world;
      const migrated = await runCliProcess(['migrate', '--postgres', url], { env });
      expect(migrated.code).toBe(0);
      model.reply({ turn: { text: ['First done.'] } });
      model.reply({ turn: { text: ['Second done.'] } });
      const queue = ['--redis', servers.redis.url, '--postgres', url, '--queue', 'graph'];
      const worker = startCliProcess(['worker', ...queue, '--cwd', workspace], { env, timeoutMs: 60_000 });
      const file = join(workspace, 'graph.json');
      const tasks = [
        { id: 'a', prompt: 'one' },
        { id: 'b', prompt: 'two', dependsOn: ['a'] },
      ];
      await writeFile(file, JSON.stringify({ tasks }));
      const job = await runCliProcess(['job', file, ...queue], { env, timeoutMs: 60_000 });
      worker.kill('SIGTERM');
      expect((await worker.done).code).toBe(0);
      expect([job.code, job.stderr]).toEqual([0, '']);
      const name = /\(ids (graph-[0-9a-f]+)-a …\)/.exec(job.stdout)?.[1];
      expect(job.stdout.split('\n')).toEqual([
        `agentchart: job ${file}: 2 task(s) on queue "graph" (ids ${name}-a …)`,
        'agentchart: the task graph (a task ← what it waits for):',
        '  a',
        '  b ← a',
        // b may still be parked when a's end is read.
        expect.stringMatching(
          new RegExp(
            `^\\[1/2\\] task 0 \\(a\\) completed · session ${name}-a · First done\\.( · 1 waiting)?$`,
          ),
        ),
        `[2/2] task 1 (b) completed · session ${name}-b · Second done.`,
        'agentchart: how the graph ended:',
        '  ✓ a: completed',
        '  ✓ b ← a: completed',
        expect.stringMatching(/^agentchart: 2 task\(s\): 2 completed · \d+ input \/ \d+ output tokens$/),
        '',
      ]);
      const store = pgStore(url);
      try {
        const { events } = await store.load(`${name}-b`);
        const asked = events.find((event) => isEvent(event, 'user.message'));
        expect(asked && isEvent(asked, 'user.message') ? asked.data.content : undefined).toBe(
          `two\n\nThe tasks this task depends on have ended. Their results:\n\n<dependency id="${name}-a" reason="completed">\nFirst done.\n</dependency>`,
        );
      } finally {
        await store.close();
      }
    }, 60_000);

    it('a worker follows the workspace: its settings’ deny rules, its CLAUDE.md, its skills', async () => {
      const url = await servers.postgres.createDatabase('cliworkspace');
      const { server: model, workspace, env } = world;
      expect((await runCliProcess(['migrate', '--postgres', url], { env })).code).toBe(0);
      await mkdir(join(workspace, '.claude', 'skills', 'release-notes'), { recursive: true });
      await writeFile(
        join(workspace, '.claude', 'settings.json'),
        JSON.stringify({ permissions: { deny: ['Bash(touch:*)'] } }),
      );
      await writeFile(join(workspace, 'CLAUDE.md'), 'Always answer in haiku.\n');
      await writeFile(
        join(workspace, '.claude', 'skills', 'release-notes', 'SKILL.md'),
        '---\nname: release-notes\ndescription: Writes release notes.\n---\nList the changes.\n',
      );
      model.reply({ turn: { toolCalls: [wireToolCall('t1', 'bash', { command: 'touch PWNED' })] } });
      model.reply({ turn: { text: ['Refused, as the rules say.'] } });
      const queue = ['--redis', servers.redis.url, '--postgres', url, '--queue', 'workspace'];
      // Bypass on the command line: the workspace's deny rule still holds.
      const worker = startCliProcess(['worker', ...queue, '--cwd', workspace, '--mode', 'bypass'], {
        env,
        timeoutMs: 60_000,
      });
      const file = join(workspace, 'touch.json');
      await writeFile(file, JSON.stringify({ tasks: [{ prompt: 'make the file' }] }));
      const job = await runCliProcess(['job', file, ...queue], { env, timeoutMs: 60_000 });
      worker.kill('SIGTERM');
      expect((await worker.done).code).toBe(0);
      expect([job.code, job.stderr]).toEqual([0, '']);
      await expect(access(join(workspace, 'PWNED'))).rejects.toThrow();
      const request = JSON.stringify(model.requests.at(-2)!.body);
      expect([request.includes('Always answer in haiku.'), request.includes('release-notes')]).toEqual([
        true,
        true,
      ]);
      const answer = JSON.stringify(model.requests.at(-1)!.body);
      expect(answer).toContain('Permission denied');
    }, 60_000);
  },
);
