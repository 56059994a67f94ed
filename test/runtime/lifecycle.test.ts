// Agent lifecycle through the public API: real setup failures at each stage roll back completely;
// run() results; dispose from idle and running, idempotent and shared; whenIdle().
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SimulatedClock } from '../../src/core/clock.ts';
import { AgentStateError } from '../../src/errors/agent-state-error.ts';
import { ConfigError } from '../../src/errors/config-error.ts';
import { createAgentSystem } from '../../src/index.ts';
import type { AgentSystemOptions } from '../../src/runtime/options.ts';
import { memoryStore } from '../../src/session/memory-store.ts';
import type { SessionStore } from '../../src/session/types.ts';
import { GateProvider, GateTool, settle } from '../support/controllable.ts';

/** A memory store whose next `create` rejects (a full disk, a permission problem, …). */
function refusingStore(): SessionStore & { refuseNext: boolean } {
  const inner = memoryStore();
  const store = {
    ...inner,
    refuseNext: true,
    async create(sessionId: string) {
      if (store.refuseNext) {
        store.refuseNext = false;
        throw new Error('disk full');
      }
      return inner.create(sessionId);
    },
  };
  return store;
}

function setup(options: Partial<AgentSystemOptions> = {}) {
  let n = 0;
  const model = new GateProvider();
  const store = options.store ?? memoryStore();
  const system = createAgentSystem({
    model,
    store,
    ids: () => `id${++n}`,
    clock: new SimulatedClock(1_000),
    projectInstructions: false,
    permissionMode: 'bypass',
    ...options,
  });
  return { model, store, system };
}

const temporary: string[] = [];
afterEach(async () => {
  for (const dir of temporary.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe('creation rolls back on a real failure at each stage', () => {
  it('session: the store refuses to create it', async () => {
    const store = refusingStore();
    const { system } = setup({ store });
    await expect(system.createAgent({ id: 'a' })).rejects.toThrow('disk full');
    expect(await store.list()).toEqual([]);
    expect(system.list()).toEqual([]);
    const again = await system.createAgent({ id: 'a' });
    expect(again.log().map((event) => event.type)).toEqual(['session.start']);
    await system.dispose();
  });

  it('two tools with the same name are refused at createAgent, before any stage ran', async () => {
    const { system, store } = setup();
    const failure = system.createAgent({
      id: 'a',
      tools: [new GateTool('probe').tool, new GateTool('probe').tool],
    });
    await expect(failure).rejects.toBeInstanceOf(ConfigError);
    await expect(failure).rejects.toThrow('createAgent: options.tools[1].name "probe" is taken by tools[0]');
    expect(await store.exists('a')).toBe(false);
    expect(system.list()).toEqual([]);
    const again = await system.createAgent({ id: 'a', tools: [new GateTool('probe').tool] });
    expect(again.state).toBe('ready.idle');
    await system.dispose();
  });

  it('tools: a workspace that is not a directory', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentchart-lifecycle-'));
    temporary.push(dir);
    const file = join(dir, 'not-a-dir');
    await writeFile(file, 'x');
    const { system, store } = setup({ cwd: file });
    await expect(system.createAgent({ id: 'a' })).rejects.toThrow(`workspace "${file}" is not a directory`);
    expect(await store.list()).toEqual([]);
    expect(system.list()).toEqual([]);
    await system.dispose();
  });

  it('publish: two resumes of one session race; the loser undoes and writes nothing', async () => {
    const { system, store } = setup();
    const first = await system.createAgent({ id: 'a' });
    await first.dispose();
    const stored = (await store.load('a')).events;
    const outcomes = await Promise.allSettled([system.resumeAgent('a'), system.resumeAgent('a')]);
    const rejected = outcomes.filter((outcome) => outcome.status === 'rejected');
    const fulfilled = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    expect([rejected.length, fulfilled.length]).toEqual([1, 1]);
    expect((rejected[0] as PromiseRejectedResult).reason).toBeInstanceOf(ConfigError);
    expect((await store.load('a')).events).toEqual(stored);
    expect(system.list()).toHaveLength(1);
    await system.dispose();
  });
});

describe('run, whenIdle and dispose', () => {
  it('run() resolves with reason, text, usage, turn and the calls denied (none)', async () => {
    const { model, system } = setup();
    const agent = await system.createAgent({ id: 'a' });
    const run = agent.run('hi');
    (await model.request(0)).delta('Hel').delta('lo.').done('end_turn', { inputTokens: 7, outputTokens: 2 });
    expect(await run).toEqual({
      reason: 'completed',
      text: 'Hello.',
      usage: { inputTokens: 7, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 },
      turn: 1,
      denied: [],
    });
    await system.dispose();
  });

  it('whenIdle() waits for the running turn and resolves at once when idle', async () => {
    const { model, system } = setup();
    const agent = await system.createAgent({ id: 'a' });
    await agent.whenIdle();
    agent.followup('work');
    await settle();
    expect(agent.state).toBe('ready.running');
    let idle = false;
    const waiting = agent.whenIdle().then(() => {
      idle = true;
    });
    await settle();
    expect(idle).toBe(false);
    (await model.request(0)).answer('Done.');
    await waiting;
    expect(agent.state).toBe('ready.idle');
    await system.dispose();
  });

  it('dispose while running: the running run resolves canceled, queued runs reject, the log is flushed', async () => {
    const { model, system, store } = setup();
    const agent = await system.createAgent({ id: 'a' });
    const running = agent.run('one');
    await settle();
    const queued = agent.run('two');
    const request = await model.request(0);
    const first = agent.dispose();
    const second = agent.dispose();
    expect(second).toBe(first);
    expect(() => agent.followup('late')).toThrow(AgentStateError);
    await Promise.all([first, second]);
    expect(request.aborted).toBe(true);
    expect(await running).toMatchObject({ reason: 'canceled', turn: 1 });
    await expect(queued).rejects.toBeInstanceOf(AgentStateError);
    expect(agent.state).toBe('disposed');
    const events = agent.log();
    expect(events.filter((event) => event.type === 'turn.end').map((event) => event.data.cause)).toEqual([
      'disposed',
    ]);
    expect(events.filter((event) => event.type === 'session.end')).toHaveLength(1);
    expect(events.at(-1)?.type).toBe('session.end');
    expect((await store.load('a')).events).toEqual(events);
    // Idempotent after the fact, and nothing more is written.
    await agent.dispose();
    await expect(agent.run('again')).rejects.toBeInstanceOf(AgentStateError);
    expect(() => agent.cancel()).toThrow(AgentStateError);
    expect(agent.log()).toHaveLength(events.length);
    expect(system.list()).toEqual([]);
    await system.dispose();
  });

  it('system.dispose() disposes every agent fully', async () => {
    const { system, store } = setup();
    const a = await system.createAgent({ id: 'a' });
    const b = await system.createAgent({ id: 'b' });
    b.followup('work');
    await settle();
    await system.dispose();
    for (const agent of [a, b]) {
      expect(agent.state).toBe('disposed');
      expect((await store.load(agent.id)).events).toEqual(agent.log());
      expect(agent.log().at(-1)?.type).toBe('session.end');
    }
    await expect(system.createAgent()).rejects.toBeInstanceOf(AgentStateError);
  });
});
