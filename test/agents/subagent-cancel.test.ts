import { afterEach, describe, expect, it } from 'vitest';
import type { ScriptStep } from '../../src/providers/scripted.ts';
import type { ModelRequest } from '../../src/providers/types.ts';
import type { Agent, RunResult } from '../../src/runtime/agent-handle.ts';
import { type AgentSystem, createAgentSystem } from '../../src/runtime/create-agent-system.ts';
import type { LogEvent } from '../../src/session/types.ts';
import { taskTool } from '../../src/tools/task.ts';
import { GateTool } from '../support/controllable.ts';
import {
  assertCallsPaired,
  counterIds,
  routedModel,
  stepIndex,
  tickingClock,
  until,
} from '../support/crash-kit.ts';

// Cancel and dispose reach every descendant first: for each state a parent with running children can be
// in, and for each way of stopping it, every child is cancelled (cause "parent") and disposed, and every
// tool call in every session of the tree has exactly one result.

const task = (prompt: string) => ({ name: 'task', input: { description: 'delegate', prompt } });
const wait = { name: 'wait', input: { value: 'w' } };

/** The parent delegates with `calls`, finishes after them, and answers a later "again" on its own. */
function parentRoute(calls: ScriptStep['toolCalls']) {
  return (request: ModelRequest): ScriptStep => {
    const last = request.messages.at(-1);
    if (last?.role === 'user' && last.content === 'again') return { text: 'again done' };
    return stepIndex(request) === 0 ? { toolCalls: calls ?? [] } : { text: 'parent done' };
  };
}

type Scenario = {
  name: string;
  routes: Parameters<typeof routedModel>[0];
  /** How many agents are alive once the tree is in the state under test. */
  alive: number;
  reached: (system: AgentSystem, gate: GateTool) => boolean;
  /** Children whose turn completed before the stop (they end `completed`, not `canceled`). */
  completedChildren: number;
};

const inTool = (n: number) => (system: AgentSystem, gate: GateTool) =>
  gate.running.size === 1 && system.list().length === n;
const childLogHas = (type: LogEvent['type']) => (system: AgentSystem) =>
  system.list().some((agent) => agent.id !== 'parent' && agent.log().some((event) => event.type === type));

const scenarios: Scenario[] = [
  {
    name: 'a child is running a tool',
    routes: { parent: parentRoute([task('child')]), child: [{ toolCalls: [wait] }, { text: 'child done' }] },
    alive: 2,
    reached: inTool(2),
    completedChildren: 0,
  },
  {
    name: 'a grandchild is running a tool',
    routes: {
      parent: parentRoute([task('child')]),
      child: [{ toolCalls: [task('grandchild')] }, { text: 'child done' }],
      grandchild: [{ toolCalls: [wait] }, { text: 'grandchild done' }],
    },
    alive: 3,
    reached: inTool(3),
    completedChildren: 0,
  },
  {
    name: 'a child is waiting for the model',
    routes: { parent: parentRoute([task('child')]), child: [{ delayMs: 1e9, text: 'never' }] },
    alive: 2,
    reached: childLogHas('step.start'),
    completedChildren: 0,
  },
  {
    name: 'a child is waiting to retry the model',
    routes: {
      parent: parentRoute([task('child')]),
      child: [{ error: { kind: 'overloaded', retryAfterMs: 600_000 } }],
    },
    alive: 2,
    reached: childLogHas('assistant.attempt'),
    completedChildren: 0,
  },
  {
    name: 'one child has finished and its sibling runs a tool',
    routes: {
      parent: parentRoute([task('quick'), task('child')]),
      quick: [{ text: 'quick done' }],
      child: [{ toolCalls: [wait] }, { text: 'child done' }],
    },
    alive: 2,
    // The quick child's result is committed (it is first in model order) and its sibling is in its tool.
    reached: (system, gate) =>
      inTool(2)(system, gate) &&
      system
        .list()
        .some((agent) => agent.id === 'parent' && agent.log().some((e) => e.type === 'tool.result')),
    completedChildren: 1,
  },
];

type Stop = 'cancel' | 'dispose' | 'system.dispose';
const stops: Stop[] = ['cancel', 'dispose', 'system.dispose'];

let system: AgentSystem | undefined;
afterEach(async () => {
  await system?.dispose();
  system = undefined;
});

async function treeInState(scenario: Scenario) {
  const gate = new GateTool('wait');
  const sys = createAgentSystem({
    model: routedModel(scenario.routes),
    tools: [gate.tool, taskTool()],
    ids: counterIds(),
    clock: tickingClock(),
    projectInstructions: false,
    permissionMode: 'bypass',
  });
  system = sys;
  const parent = await sys.createAgent({ id: 'parent' });
  const run = parent.run('parent');
  await until(() => scenario.reached(sys, gate), scenario.name);
  expect(sys.list()).toHaveLength(scenario.alive);
  return { sys, parent, run };
}

async function stopTree(stop: Stop, sys: AgentSystem, parent: Agent): Promise<void> {
  if (stop === 'cancel') parent.cancel();
  else if (stop === 'dispose') await parent.dispose();
  else await sys.dispose();
}

async function allLogs(sys: AgentSystem): Promise<Map<string, LogEvent[]>> {
  const logs = new Map<string, LogEvent[]>();
  for (const id of await sys.store.list()) logs.set(id, (await sys.store.load(id)).events);
  return logs;
}

describe.each(scenarios)('stopping a parent while $name', (scenario) => {
  it.each(stops)(
    '%s cancels and disposes every descendant first; every call keeps its result',
    async (stop) => {
      const { sys, parent, run } = await treeInState(scenario);
      await stopTree(stop, sys, parent);
      const result: RunResult = await run;
      expect(result.reason).toBe('canceled');
      await parent.whenIdle();
      expect(sys.list().map((agent) => agent.id)).toEqual(stop === 'cancel' ? ['parent'] : []);

      const logs = await allLogs(sys);
      expect(logs.size).toBe(scenario.alive + scenario.completedChildren);
      const parentLog = stop === 'cancel' ? parent.log() : logs.get('parent')!;
      const outcomes = parentLog.filter((e) => e.type === 'tool.result').map((e) => e.data.outcome);
      expect(outcomes).toEqual([...Array(scenario.completedChildren).fill('ok'), 'aborted']);
      // A cancelled parent lives on; a disposed one ends its session, after every child has ended its own.
      const parentEnd = parentLog.find((e) => e.type === 'session.end');
      expect(parentEnd?.type, 'the parent session end').toBe(stop === 'cancel' ? undefined : 'session.end');
      for (const [id, events] of logs) {
        const label = `session ${id} (${stop}, ${scenario.name})`;
        assertCallsPaired(events, label);
        if (id === 'parent') continue;
        const end = events.at(-1)!;
        expect(end.type, label).toBe('session.end');
        // Dispose sequencing over the tree: a child is gone before its parent writes its own end.
        if (stop !== 'cancel') expect(end.ts, label).toBeLessThan(parentEnd!.ts);
        const turnEnd = events.filter((e) => e.type === 'turn.end').at(-1)?.data;
        const completed = events.some((e) => e.type === 'user.message' && e.data.content === 'quick');
        expect(turnEnd, label).toMatchObject(
          completed ? { reason: 'completed' } : { reason: 'canceled', cause: 'parent' },
        );
      }
      if (stop === 'cancel') {
        // The parent lives on and answers new input; nothing of the cancelled tree is left behind.
        expect(await parent.run('again')).toMatchObject({ reason: 'completed', text: 'again done' });
        expect(sys.list()).toHaveLength(1);
      }
    },
  );
});
