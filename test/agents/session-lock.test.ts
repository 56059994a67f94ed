// One live agent per session across agent systems (and processes): the session's lock is taken when the
// agent opens it and given back on dispose or a failed creation.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors/config-error.ts';
import { scripted } from '../../src/providers/scripted.ts';
import { type AgentSystem, createAgentSystem } from '../../src/runtime/create-agent-system.ts';
import { fileStore } from '../../src/session/file-store.ts';
import { counterIds, tickingClock } from '../support/crash-kit.ts';

const systems: AgentSystem[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(systems.splice(0).map((s) => s.dispose()));
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

function systemOn(dir: string, name: string, options: { cwd?: string } = {}): AgentSystem {
  const system = createAgentSystem({
    ...options,
    model: scripted(new Array(10).fill({ text: 'ok' })),
    store: fileStore(dir),
    ids: counterIds(`${name}-`),
    clock: tickingClock(),
    projectInstructions: false,
    permissionMode: 'bypass',
  });
  systems.push(system);
  return system;
}

describe('session lock', () => {
  it('refuses a resume while another system holds the session, and writes nothing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentchart-session-lock-'));
    dirs.push(dir);
    const first = systemOn(dir, 'one');
    const second = systemOn(dir, 'two');
    const agent = await first.createAgent({ id: 'a' });
    await agent.run('hello');
    expect((await readdir(dir)).sort()).toEqual(['a.jsonl', 'a.lock']);
    const before = await readFile(join(dir, 'a.jsonl'), 'utf8');

    const refused = second.resumeAgent('a');
    await expect(refused).rejects.toBeInstanceOf(ConfigError);
    await expect(refused).rejects.toThrow(/session "a" is held by a live agent \(pid \d+/);
    expect(await readFile(join(dir, 'a.jsonl'), 'utf8')).toBe(before);
    expect(second.list()).toEqual([]);

    await agent.dispose();
    expect(await readdir(dir)).toEqual(['a.jsonl']);
    const resumed = await second.resumeAgent('a');
    expect(await resumed.run('again')).toMatchObject({ reason: 'completed', turn: 2 });
    await resumed.dispose();
  });

  it('gives the lock back when creation rolls back', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentchart-session-lock-'));
    dirs.push(dir);
    // The tools stage fails after the session stage took the lock: the workspace is not a directory.
    const broken = systemOn(dir, 'one', { cwd: join(dir, 'no-such-workspace') });
    const failed = broken.createAgent({ id: 'a' });
    await expect(failed).rejects.toThrow(/^workspace ".*no-such-workspace" is not a directory$/);
    expect(await readdir(dir)).toEqual([]);
    const agent = await systemOn(dir, 'two').createAgent({ id: 'a' });
    expect(agent.state).toBe('ready.idle');
  });
});
