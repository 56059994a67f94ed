// Graph paths of the step chart, driven inside a CHILD agent (spawned by the parent's `task` call):
// for every state the child can rest in, stopping the parent (cancel, dispose, system dispose) must
// cancel and dispose the child first, and every tool call of every session must keep one result.
import { afterEach, describe, expect, it } from 'vitest';
import { SimulatedClock } from '../../src/core/clock.ts';
import { stepMachine } from '../../src/machines/step.ts';
import { scripted } from '../../src/providers/scripted.ts';
import type { ModelEvent, ModelRequest, Provider } from '../../src/providers/types.ts';
import type { Agent, RunResult } from '../../src/runtime/agent-handle.ts';
import { type AgentSystem, createAgentSystem } from '../../src/runtime/create-agent-system.ts';
import type { LogEvent } from '../../src/session/types.ts';
import { taskTool } from '../../src/tools/task.ts';
import { GateProvider, GateTool } from '../support/controllable.ts';
import { assertCallsPaired, counterIds, firstUser, until } from '../support/crash-kit.ts';
import {
  busy,
  childStepEvents,
  type StepSnapshot,
  serializeChildStep,
  stepInput,
  waitCall,
} from './catalogues/step.ts';
import { type ChartPath, chartModel, type EventTable, pathName } from './support/model.ts';

const graph = chartModel(stepMachine, {
  input: stepInput({
    agentKey: 'agent:child',
    toolNames: ['wait'],
    jitterKey: 'child',
    retry: { maxAttempts: 2, baseDelayMs: 1_000, maxDelayMs: 1_000 },
  }),
  events: childStepEvents,
  serializeState: serializeChildStep,
});

/** States a child's step rests in while the parent waits on its `task` call. */
const resting = ['requesting', 'waitingToRetry', 'executingTools'] as const;
const paths = graph.shortestPaths().filter((path) => resting.some((state) => path.state.matches(state)));

/** The parent delegates once and then answers on its own; the child talks to a gate the test holds. */
function treeModel(child: GateProvider): Provider {
  const parent = scripted(
    new Array(50).fill((request: ModelRequest) =>
      request.messages.some((m) => m.role === 'tool')
        ? { text: 'parent done' }
        : { toolCalls: [{ id: 't1', name: 'task', input: { description: 'delegate', prompt: 'child' } }] },
    ),
  );
  return {
    name: 'tree',
    model: 'gate-model',
    stream: (request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent> =>
      firstUser(request) === 'child' ? child.stream(request, signal) : parent.stream(request, signal),
  };
}

/** Simulated timers, but every read of `now` moves by one, so `ts` orders events across sessions. */
class TickingSimulatedClock extends SimulatedClock {
  private reads = 0;
  override now(): number {
    return super.now() + this.reads++;
  }
}

type Tree = {
  system: AgentSystem;
  parent: Agent;
  run: Promise<RunResult>;
  gate: GateProvider;
  clock: SimulatedClock;
};

let system: AgentSystem | undefined;
afterEach(async () => {
  await system?.dispose();
  system = undefined;
});

const childOf = (tree: Tree) => tree.system.list().find((agent) => agent.id !== 'parent');

/** The child's step actor state, read from the live actor tree. */
function childStepState(tree: Tree): unknown {
  const turn = childOf(tree)
    ?.snapshot()
    .children.find((c) => c.id === 'turn');
  return turn?.children.find((c) => c.id === 'step')?.value;
}

/** Drives the child's model along the path's events; the parent's own model answers by itself. */
function childStimuli(tree: Tree): EventTable<typeof stepMachine> {
  let requestIndex = 0;
  const request = () => tree.gate.request(requestIndex);
  return {
    // The child's turn begins its first step as the child starts.
    'step.begin': () => undefined,
    'model.streaming': async () => void (await request()).delta('partial '),
    'model.done': async () => void (await request()).answer('', [waitCall]),
    'model.error': async () => {
      (await request()).fail('overloaded', busy.retryAfterMs);
      requestIndex++;
    },
    'retry.due': () => void tree.clock.runNext(),
  };
}

async function treeAlong(path: ChartPath<typeof stepMachine>): Promise<Tree> {
  const gate = new GateProvider();
  const clock = new TickingSimulatedClock(1_000);
  const wait = new GateTool('wait');
  const sys = createAgentSystem({
    model: treeModel(gate),
    tools: [wait.tool, taskTool()],
    ids: counterIds(),
    clock,
    projectInstructions: false,
    permissionMode: 'bypass',
    limits: { maxAttempts: 2 },
    retry: { baseDelayMs: 1_000, maxDelayMs: 1_000 },
  });
  system = sys;
  const parent = await sys.createAgent({ id: 'parent' });
  const tree: Tree = { system: sys, parent, run: parent.run('parent'), gate, clock };
  await tree.gate.request(0);
  const restsAt = (state: StepSnapshot) =>
    until(
      () => JSON.stringify(childStepState(tree)) === JSON.stringify(state.value),
      `child in ${JSON.stringify(state.value)}`,
    );
  await graph.run(path, {
    events: childStimuli(tree),
    states: {
      executingTools: async (state) => {
        await restsAt(state);
        await until(() => wait.running.size === 1, 'the child tool runs');
      },
      '*': restsAt,
    },
  });
  return tree;
}

type Stop = 'cancel' | 'dispose' | 'system.dispose';

async function allLogs(sys: AgentSystem): Promise<Map<string, LogEvent[]>> {
  const logs = new Map<string, LogEvent[]>();
  for (const id of await sys.store.list()) logs.set(id, (await sys.store.load(id)).events);
  return logs;
}

const describePath = (path: (typeof paths)[number]) =>
  pathName(path, (event) => event.type, { join: ' → ', empty: '(first request)' });

describe('stopping a parent while its child rests in each state of the step chart', () => {
  it('covers the resting states reachable by the child', () => {
    expect(paths.map((path) => serializeChildStep(path.state))).toEqual([
      '["requesting",1,false]',
      '["requesting",1,true]',
      '["executingTools",1,false]',
      '["waitingToRetry",1,false]',
      '["executingTools",1,true]',
      '["waitingToRetry",1,true]',
      '["requesting",2,false]',
      '["requesting",2,true]',
      '["executingTools",2,false]',
      '["executingTools",2,true]',
    ]);
  });

  const stops: Stop[] = ['cancel', 'dispose', 'system.dispose'];
  describe.each(paths.map((path) => ({ path, name: describePath(path) })))('child: $name', ({ path }) => {
    it.each(stops)(
      '%s: the child is cancelled and disposed first; every call keeps one result',
      async (stop) => {
        const tree = await treeAlong(path);
        expect(tree.system.list()).toHaveLength(2);
        if (stop === 'cancel') tree.parent.cancel();
        else if (stop === 'dispose') await tree.parent.dispose();
        else await tree.system.dispose();
        expect((await tree.run).reason).toBe('canceled');
        await tree.parent.whenIdle();
        expect(tree.system.list().map((agent) => agent.id)).toEqual(stop === 'cancel' ? ['parent'] : []);

        const logs = await allLogs(tree.system);
        expect([...logs.keys()]).toHaveLength(2);
        const parentLog = stop === 'cancel' ? tree.parent.log() : logs.get('parent')!;
        expect(parentLog.filter((e) => e.type === 'tool.result').map((e) => e.data.outcome)).toEqual([
          'aborted',
        ]);
        // A cancelled parent lives on; a disposed one ends its session, after every child has ended its own.
        const parentEnd = parentLog.find((e) => e.type === 'session.end');
        expect(parentEnd?.type, 'the parent session end').toBe(stop === 'cancel' ? undefined : 'session.end');
        for (const [id, events] of logs) {
          assertCallsPaired(events, `session ${id}`);
          if (id === 'parent') continue;
          expect(events.at(-1)?.type).toBe('session.end');
          // Dispose sequencing over the tree: the child's session ends before the parent's does.
          if (stop !== 'cancel') expect(events.at(-1)!.ts).toBeLessThan(parentEnd!.ts);
          expect(events.filter((e) => e.type === 'turn.end').at(-1)?.data).toMatchObject({
            reason: 'canceled',
            cause: 'parent',
          });
          // Text the child's consumers saw stays in its log as an interrupted message.
          const streamed = path.state.context.streamed && path.state.matches('requesting');
          expect(events.some((e) => e.type === 'assistant.message' && e.data.interrupted === true)).toBe(
            streamed,
          );
        }
      },
    );
  });
});
