// The environment block: gathered by an actor before each turn's first step from a real git repository,
// logged when it changed, and sent from the log on resume and replay (never gathered again there).
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { environmentText, gatherEnvironment } from '../../src/actors/environment.ts';
import { assertSameLog, createAgentSystem } from '../../src/index.ts';
import { scripted } from '../../src/providers/scripted.ts';
import { replaySession } from '../../src/replay/replay-session.ts';
import { memoryStore } from '../../src/session/memory-store.ts';
import type { LogEvent } from '../../src/session/types.ts';
import { counterIds, tickingClock } from '../support/crash-kit.ts';

// 2026-12-01T08:00:00Z: the date comes from the injected clock, not the machine's.
const start = Date.UTC(2026, 11, 1, 8);
const platform = `${process.platform} (${process.arch})`;
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
    cwd,
    stdio: 'pipe',
  });
const environments = (log: readonly LogEvent[]) =>
  log.filter((event) => event.type === 'environment').map((event) => [event.turn, event.data.text]);
const block = (cwd: string, gitLines: string[]) =>
  [
    '# Environment',
    `Workspace: ${cwd}`,
    `Platform: ${platform}`,
    "Today's date: 2026-12-01",
    'Model: scripted',
    ...gitLines,
  ].join('\n');

describe('the environment block', () => {
  let workspace: string;
  beforeEach(async () => {
    workspace = await realpath(await mkdtemp(join(tmpdir(), 'agentchart-environment-')));
  });
  afterEach(() => rm(workspace, { recursive: true, force: true }));

  const system = (model: ReturnType<typeof scripted>, store = memoryStore(), environment = true) =>
    createAgentSystem({
      model,
      cwd: workspace,
      store,
      ids: counterIds(),
      clock: tickingClock(start),
      projectInstructions: false,
      environment,
    });

  it('tells the model the git branch and status; re-gathered per turn and logged only when it changed', async () => {
    git(workspace, 'init', '-q', '-b', 'main');
    await writeFile(join(workspace, 'a.txt'), 'a\n');
    git(workspace, 'add', 'a.txt');
    git(workspace, 'commit', '-q', '-m', 'first');
    const model = scripted([{ text: 'one' }, { text: 'two' }, { text: 'three' }]);
    const host = system(model);
    const agent = await host.createAgent({ id: 'a', instructions: 'Be brief.' });
    await agent.run('first');
    await writeFile(join(workspace, 'a.txt'), 'changed\n');
    await writeFile(join(workspace, 'new.txt'), 'new\n');
    await agent.run('second');
    await agent.run('third');
    const clean = block(workspace, ['Git: a repository on branch main', 'Git status: clean']);
    const dirty = block(workspace, [
      'Git: a repository on branch main',
      'Git status (short):',
      ' M a.txt',
      '?? new.txt',
    ]);
    // The system prompt never changes: each block is a user message where it was logged, so every
    // request starts with the previous one (the vendor's cache reads that prefix).
    expect(model.requests.map((request) => request.system)).toEqual(['Be brief.', 'Be brief.', 'Be brief.']);
    expect(model.requests.at(-1)!.messages).toEqual([
      { role: 'user', content: 'first' },
      { role: 'user', content: clean },
      { role: 'assistant', text: 'one', toolCalls: [] },
      { role: 'user', content: 'second' },
      { role: 'user', content: dirty },
      { role: 'assistant', text: 'two', toolCalls: [] },
      { role: 'user', content: 'third' },
    ]);
    // Logged before the request that carries it, and only when it changed (not in turn 3).
    expect(environments(agent.log())).toEqual([
      [1, clean],
      [2, dirty],
    ]);
    const order = agent.log().map((event) => event.type);
    expect(order.indexOf('environment')).toBeLessThan(order.indexOf('step.start'));
    const hashes = agent
      .log()
      .filter((event) => event.type === 'step.start')
      .map((event) => event.data.systemHash);
    expect(new Set(hashes).size).toBe(1);
    // session.start records the prompt without the block; the block lives in the log's events.
    expect((agent.log()[0]!.data.config as { system: string }).system).toBe('Be brief.');
    const recorded = agent.log();
    await host.dispose();

    // Replay sends the recorded blocks, whatever the workspace holds now.
    await writeFile(join(workspace, 'later.txt'), 'later\n');
    const replayed = await replaySession(recorded);
    expect(replayed.stopped).toBeUndefined();
    assertSameLog(recorded, replayed.events);
  });

  it('resume starts from the last logged block and logs a new one only when the workspace changed', async () => {
    const store = memoryStore();
    const first = scripted([{ text: 'one' }]);
    const host = system(first, store);
    const agent = await host.createAgent({ id: 'a' });
    await agent.run('first');
    await host.dispose();
    const none = block(workspace, ['Git: not a git repository']);
    expect(first.requests[0]!.messages.at(-1)).toEqual({ role: 'user', content: none });

    const second = scripted([{ text: 'two' }, { text: 'three' }]);
    const again = system(second, store);
    const resumed = await again.resumeAgent('a');
    await resumed.run('second');
    git(workspace, 'init', '-q', '-b', 'trunk');
    await resumed.run('third');
    expect(second.requests[0]!.system).toBe(first.requests[0]!.system);
    expect(second.requests[0]!.messages.slice(0, 2)).toEqual(first.requests[0]!.messages);
    expect(environments(resumed.log())).toEqual([
      [1, none],
      [3, block(workspace, ['Git: a repository on branch trunk (no commits yet)', 'Git status: clean'])],
    ]);
    await again.dispose();
  });

  it('is off unless asked for, and a git that fails is described, not raised', async () => {
    const model = scripted([{ text: 'plain' }, { text: 'no git' }]);
    const off = system(model, memoryStore(), false);
    const agent = await off.createAgent({ id: 'a', instructions: 'Be brief.' });
    await agent.run('hi');
    expect(model.requests[0]!.system).toBe('Be brief.');
    expect(environments(agent.log())).toEqual([]);
    await off.dispose();

    const path = process.env.PATH;
    process.env.PATH = join(workspace, 'no-such-bin');
    try {
      const broken = system(scripted([{ text: 'no git' }]));
      const alone = await broken.createAgent({ id: 'b' });
      await alone.run('hi');
      expect(environments(alone.log())).toEqual([[1, block(workspace, ['Git: unknown (spawn git ENOENT)'])]]);
      await broken.dispose();
    } finally {
      process.env.PATH = path;
    }
  });

  /** Runs `body` with a `git` on PATH that writes its pid to `pidFile` and then hangs (until killed). */
  async function withHangingGit(body: (pidFile: string) => Promise<void>): Promise<void> {
    const bin = join(workspace, 'bin');
    const pidFile = join(workspace, 'git.pid');
    await mkdir(bin);
    await writeFile(join(bin, 'git'), `#!/bin/sh\necho $$ > '${pidFile}'\nexec sleep 60\n`);
    await chmod(join(bin, 'git'), 0o755);
    const path = process.env.PATH;
    process.env.PATH = `${bin}:${path}`;
    try {
      await body(pidFile);
    } finally {
      process.env.PATH = path;
    }
  }

  const startedPid = async (pidFile: string): Promise<number> => {
    for (;;) {
      const text = await readFile(pidFile, 'utf8').catch(() => '');
      if (text.endsWith('\n')) return Number(text.trim());
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  const gone = async (pid: number): Promise<void> => {
    for (;;) {
      try {
        process.kill(pid, 0);
      } catch {
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };

  it('a cancel while git status runs stops git: the block says so, not that git took too long', async () => {
    await withHangingGit(async (pidFile) => {
      const controller = new AbortController();
      const text = gatherEnvironment({ cwd: workspace, now: start, model: 'm' }, controller.signal);
      const pid = await startedPid(pidFile);
      controller.abort();
      expect((await text).split('\n').at(-1)).toBe('Git: unknown (stopped: the step was cancelled)');
      await gone(pid);
      const already = await gatherEnvironment({ cwd: workspace, now: start, model: 'm' }, controller.signal);
      expect(already.split('\n').at(-1)).toBe('Git: unknown (not gathered: the step was cancelled)');
    });
  });

  it('cancelling a turn while its environment is gathered ends the turn, kills git and logs no block', async () => {
    await withHangingGit(async (pidFile) => {
      const host = system(scripted([{ text: 'never sent' }]));
      const agent = await host.createAgent({ id: 'a' });
      const run = agent.run('go');
      const pid = await startedPid(pidFile);
      agent.cancel();
      expect((await run).reason).toBe('canceled');
      await gone(pid);
      expect(environments(agent.log())).toEqual([]);
      await host.dispose();
    });
  });

  it('cuts a long status to 20 lines with a count of the rest', () => {
    const status = Array.from({ length: 25 }, (_, index) => `?? f${index}.txt`);
    const text = environmentText({
      cwd: '/w',
      now: start,
      model: 'm',
      platform: 'linux (x64)',
      git: { kind: 'repository', branch: 'main', status },
    });
    expect(text.split('\n').slice(-3)).toEqual(['?? f18.txt', '?? f19.txt', '… and 5 more']);
  });
});
