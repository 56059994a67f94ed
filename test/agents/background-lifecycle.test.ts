// The lifecycle of background agents is a transaction: stopping one, cancelling or disposing its parent
// (or the system) cancels, waits for and disposes every descendant, each `tool.call` keeps its result, and
// a child whose creation was under way when its parent's call was cancelled is rolled back.
import { describe, expect, it } from 'vitest';
import type { AgentSystem } from '../../src/runtime/create-agent-system.ts';
import type { AgentSystemOptions } from '../../src/runtime/options.ts';
import type { LogEvent } from '../../src/session/types.ts';
import { backgroundAgentTools } from '../../src/tools/background-agents.ts';
import { GateStore } from '../graph/support/gate-store.ts';
import { settle } from '../support/controllable.ts';
import { assertCallsPaired, echoTool, routedModel, stepIndex, until } from '../support/crash-kit.ts';
import { call, expectMailPaired, startedIds, storedLogs, useSystems } from '../support/mail-kit.ts';

const systemFor = useSystems();

function makeSystem(options: Partial<AgentSystemOptions> & Pick<AgentSystemOptions, 'model'>): AgentSystem {
  return systemFor({ tools: [echoTool, ...backgroundAgentTools()], ...options });
}

/** A child that waits for its parent's message; the simulated clock never lets its wait time out. */
const waitsForParent = [{ toolCalls: [call('wait_agents', { ids: ['parent'], timeout_ms: 60_000 })] }];

/** A parent that starts `count` such children (and, below them, a grandchild each), then is done. */
function treeModel(count: number) {
  return routedModel({
    root: (request) =>
      stepIndex(request) === 0
        ? {
            toolCalls: Array.from({ length: count }, (_, i) => call('spawn_agent', { prompt: `child ${i}` })),
          }
        : { text: 'Root done.' },
    ...Object.fromEntries(
      Array.from({ length: count }, (_, i) => [
        `child ${i}`,
        [{ toolCalls: [call('spawn_agent', { prompt: 'grandchild' })] }, ...waitsForParent],
      ]),
    ),
    grandchild: waitsForParent,
  });
}

const ended = (events: readonly LogEvent[]) =>
  events.filter((event) => event.type === 'turn.end').at(-1)?.data;

async function liveTree(sys: AgentSystem, count: number) {
  const root = await sys.createAgent({ id: 'root' });
  const run = root.run('root');
  // Every child and grandchild is live and waiting.
  await until(() => sys.list().length === 1 + 2 * count, 'the tree is live');
  await until(
    () => sys.list().every((agent) => agent.id === 'root' || agent.snapshot().children.length > 0),
    'every descendant runs a turn',
  );
  return { root, run };
}

describe('background agents: stop, cancel, dispose', () => {
  it('stop_agent cancels a child and disposes it; it sends no result and the turn stops waiting for it', async () => {
    const model = routedModel({
      boss: (request) => {
        const step = stepIndex(request);
        if (step === 0) return { toolCalls: [call('spawn_agent', { prompt: 'worker' })] };
        if (step === 1) return { toolCalls: [call('stop_agent', { id: startedIds(request)[0] })] };
        if (step === 2) return { toolCalls: [call('stop_agent', { id: startedIds(request)[0] })] };
        return { text: 'Stopped it.' };
      },
      worker: waitsForParent,
    });
    const sys = makeSystem({ model });
    const boss = await sys.createAgent({ id: 'boss' });
    expect(await boss.run('boss')).toMatchObject({ reason: 'completed', text: 'Stopped it.' });
    const [child] = boss.children();
    expect(child!.status).toBe('stopped');
    expect(await child!.result).toMatchObject({ reason: 'canceled' });
    const results = boss.log().filter((event) => event.type === 'tool.result');
    expect(results.map((event) => event.data.content).slice(1)).toEqual([
      `Stopped agent ${child!.id}.`,
      `Agent ${child!.id} had already been stopped; nothing to stop.`,
    ]);
    const logs = await storedLogs(sys.store);
    const childLog = logs.get(child!.id)!;
    expect(childLog.filter((event) => event.type === 'cancel.requested').map((event) => event.data)).toEqual([
      { by: 'parent' },
    ]);
    expect(ended(childLog)).toMatchObject({ reason: 'canceled', cause: 'parent' });
    expect(
      childLog.filter((event) => event.type === 'tool.result').map((event) => event.data.outcome),
    ).toEqual(['aborted']);
    expect(childLog.at(-1)?.type).toBe('session.end');
    expect(expectMailPaired(logs)).toEqual([]);
    for (const [id, events] of logs) assertCallsPaired(events, id);
  });

  for (const how of ['cancel', 'dispose', 'system.dispose'] as const) {
    it(`${how} of a parent with running background children releases every descendant first`, async () => {
      const sys = makeSystem({ model: treeModel(2) });
      const { root, run } = await liveTree(sys, 2);
      expect(root.children().map((child) => child.status)).toEqual(['running', 'running']);
      if (how === 'cancel') root.cancel();
      else if (how === 'dispose') await root.dispose();
      else await sys.dispose();
      expect(await run).toMatchObject({ reason: 'canceled' });
      await root.whenIdle();
      // Cancel, wait for, dispose: no descendant is left, and each child ended its session.
      const results = await Promise.all(root.children().map((child) => child.result));
      expect(results.map((result) => result.reason)).toEqual(
        how === 'cancel' ? ['canceled', 'canceled'] : [],
      );
      expect(sys.list().map((agent) => agent.id)).toEqual(how === 'cancel' ? ['root'] : []);
      const logs = await storedLogs(sys.store);
      expect(logs.size).toBe(5);
      for (const [id, events] of logs) {
        assertCallsPaired(events, id);
        if (id === 'root') continue;
        expect(events.at(-1)?.type, id).toBe('session.end');
        expect(ended(events), id).toMatchObject({ reason: 'canceled', cause: 'parent' });
        // Each session ends before its parent's (a cancel leaves the root's open).
        const parent = logs.get(String(events[0]!.data.parent))!;
        const parentEnd = parent.find((event) => event.type === 'session.end');
        if (parentEnd) expect(events.at(-1)!.ts, id).toBeLessThan(parentEnd.ts);
      }
      // Nobody sent a result: a cancelled child reports nothing.
      expect(expectMailPaired(logs)).toEqual([]);
    });
  }

  it('a child being created when its parent is disposed is rolled back: no session, no agent', async () => {
    const store = new GateStore();
    const model = routedModel({ root: [{ toolCalls: [call('spawn_agent', { prompt: 'late child' })] }] });
    const sys = makeSystem({ model, store });
    const root = await sys.createAgent({ id: 'root' });
    // The child's session stage waits on the store; the parent's dispose comes meanwhile.
    store.holdOnly(['create']);
    const run = root.run('root');
    await until(() => store.pending('create') > 0, "the child's session is being created");
    const disposing = root.dispose();
    await settle();
    store.open();
    await disposing;
    expect(await run).toMatchObject({ reason: 'canceled' });
    expect(await store.list()).toEqual(['root']);
    expect(store.writes.filter((op) => op !== 'append')).toEqual(['create', 'create', 'remove']);
    expect(sys.list()).toEqual([]);
    const events = (await store.load('root')).events;
    expect(events.filter((event) => event.type === 'agent.spawned')).toEqual([]);
    expect(events.find((event) => event.type === 'tool.result')?.data.outcome).toBe('aborted');
    expect(root.children()).toEqual([]);
  });
});
