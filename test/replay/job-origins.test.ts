// Jobs: `system.runJob` (the library, scripted models, a file store) and `agentchart job FILE` (the built
// CLI against the local OpenAI-compatible server). Nobody is asked in a job: a write that needs approval is
// decided headless, and that decision must replay as logged. Each task's session is checked elsewhere
// (origin-kit: recorded tools, live tools in a restored workspace, a tampered copy).
import { cp, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codingTools, createAgentSystem, fileStore } from '../../src/index.ts';
import { scripted } from '../../src/testing.ts';
import { runBuiltCliProcess } from '../support/child-run.ts';
import { wireToolCall as call, useCliWorld } from '../support/cli-world.ts';
import { checkEverywhere, eventsOf, tempFolder } from './origin-kit.ts';

const decisions = (events: Awaited<ReturnType<typeof checkEverywhere>>) =>
  eventsOf(events, 'approval.decided').map((event) => [event.data.callId, event.data.outcome, event.data.by]);

/** A workspace with one file, and a function that restores a fresh copy of it as it was. */
async function startingWorkspace() {
  const workspace = await tempFolder('job-workspace');
  await writeFile(join(workspace, 'a.txt'), 'one\n');
  const start = await tempFolder('job-start');
  await cp(workspace, start, { recursive: true });
  const restore = async () => {
    const restored = await tempFolder('job-restored');
    await cp(start, restored, { recursive: true });
    return restored;
  };
  return { workspace, restore };
}

const sessionFiles = async (folder: string) =>
  (await readdir(folder))
    .filter((name) => name.endsWith('.jsonl'))
    .sort()
    .map((name) => join(folder, name));

/** The check of one task's session: a headless decision's reason, changed, must diverge. */
const checkTask = (log: string, restore: () => Promise<string>) =>
  checkEverywhere({
    log,
    restore,
    tamper: {
      type: 'approval.decided',
      select: (event) => event.data.by === 'headless',
      path: ['reason'],
      value: 'nobody',
    },
  });

describe('replay of job sessions', () => {
  it('runJob (library): every task session replays, headless decisions as logged', async () => {
    const { workspace, restore } = await startingWorkspace();
    const logs = await tempFolder('job-logs');
    const system = createAgentSystem({
      model: scripted([{ text: 'unused' }]),
      tools: codingTools(),
      cwd: workspace,
      store: fileStore(logs),
      projectInstructions: false,
      approve: 'deny',
    });
    // Each task its own scripted model: tasks run side by side, so one shared script would be raced.
    const task = (index: number) => ({
      prompt: `task ${index}`,
      model: scripted([
        { toolCalls: [{ id: `r${index}`, name: 'read_file', input: { path: 'a.txt' } }] },
        {
          toolCalls: [{ id: `w${index}`, name: 'write_file', input: { path: `${index}.txt`, content: 'x' } }],
        },
        { text: `Task ${index} could not write.` },
      ]),
    });
    const results = await system.runJob({ tasks: [task(0), task(1)], concurrency: 2 }).result;
    await system.dispose();
    expect(results.map((result) => [result.reason, result.denied.map((call) => call.callId)])).toEqual([
      ['completed', ['w0']],
      ['completed', ['w1']],
    ]);
    await rm(workspace, { recursive: true, force: true });

    const files = await sessionFiles(logs);
    expect(files).toHaveLength(2);
    for (const log of files) {
      const events = await checkTask(log, restore);
      const index = String(events.find((event) => event.type === 'user.message')?.data.content).slice(-1);
      expect(decisions(events)).toEqual([
        [`r${index}`, 'allow', 'mode'],
        [`w${index}`, 'deny', 'headless'],
      ]);
    }
  }, 240_000);

  describe('agentchart job FILE', () => {
    const world = useCliWorld({ prefix: 'agentchart-origin-job', state: 'in-home' });

    it('every task session replays, headless decisions as logged', async () => {
      const { server, env } = world;
      const { workspace, restore } = await startingWorkspace();
      const logs = await tempFolder('job-cli-logs');
      const jobFile = join(await tempFolder('job-file'), 'jobs.json');
      // One at a time: the wire server answers requests in the order they come.
      await writeFile(
        jobFile,
        JSON.stringify({ tasks: [{ prompt: 'first' }, { prompt: 'second' }], concurrency: 1 }),
      );
      for (const id of ['a', 'b']) {
        server.reply({ turn: { toolCalls: [call(`r${id}`, 'read_file', { path: 'a.txt' })] } });
        server.reply({
          turn: { toolCalls: [call(`w${id}`, 'write_file', { path: `${id}.txt`, content: 'x' })] },
        });
        server.reply({ turn: { text: [`Task ${id} could not write.`] } });
      }
      const run = await runBuiltCliProcess(['job', jobFile, '--cwd', workspace, '--session-dir', logs], {
        env,
        timeoutMs: 60_000,
      });
      expect(run).toMatchObject({ code: 0, timedOut: false });
      await rm(workspace, { recursive: true, force: true });

      const files = await sessionFiles(logs);
      expect(files).toHaveLength(2);
      const seen: unknown[] = [];
      for (const log of files) {
        const events = await checkTask(log, restore);
        seen.push(...decisions(events));
      }
      expect(seen.sort()).toEqual([
        ['ra', 'allow', 'mode'],
        ['rb', 'allow', 'mode'],
        ['wa', 'deny', 'headless'],
        ['wb', 'deny', 'headless'],
      ]);
    }, 240_000);
  });
});
