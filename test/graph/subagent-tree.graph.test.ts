// Graph paths of the step chart, driven inside a CHILD agent (spawned by the parent's `task` call):
// for every state the child can rest in, stopping the parent (cancel, dispose, system dispose) must
// cancel and dispose the child first, and every tool call of every session must keep one result.
import { afterEach, describe, expect, it } from 'vitest';
import { getShortestPaths } from 'xstate/graph';
import { SimulatedClock } from '../../src/core/clock.ts';
import type { StepEvent, StepInput } from '../../src/machines/step.ts';
import { stepMachine } from '../../src/machines/step.ts';
import { scripted } from '../../src/providers/scripted.ts';
import type { ModelEvent, ModelRequest, Provider } from '../../src/providers/types.ts';
import type { Agent, RunResult } from '../../src/runtime/agent-handle.ts';
import { type AgentSystem, createAgentSystem } from '../../src/runtime/create-agent-system.ts';
import type { LogEvent } from '../../src/session/types.ts';
import { taskTool } from '../../src/tools/task.ts';
import { GateProvider, GateTool } from '../support/controllable.ts';
import { assertCallsPaired, counterIds, firstUser, until } from '../support/crash-kit.ts';

type StepSnapshot = ReturnType<typeof stepMachine.transition>;

const input: StepInput = {
  agentKey: 'agent:child',
  turn: 1,
  model: 'gate-model',
  toolNames: ['wait'],
  systemHash: 'h',
  maxParallelTools: 10,
  jitterKey: 'child',
  retry: { maxAttempts: 2, baseDelayMs: 1_000, maxDelayMs: 1_000 },
};

const toolCall = { id: 'w1', name: 'wait', input: { value: 'w' } };
const overloaded = { kind: 'overloaded', message: 'busy', retryable: true, retryAfterMs: 60_000 } as const;

/** What a child's model can do in each state; the stop always comes from the parent. */
function events(snapshot: StepSnapshot): StepEvent[] {
  if (snapshot.matches('idle') && snapshot.context.step === 0) return [{ type: 'step.begin', step: 1 }];
  if (snapshot.matches('requesting')) {
    return [
      ...(snapshot.context.streamed ? [] : [{ type: 'model.streaming' as const }]),
      {
        type: 'model.done',
        text: snapshot.context.streamed ? 'partial ' : '',
        toolCalls: [toolCall],
        usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
        stopReason: 'tool_use',
      },
      { type: 'model.error', error: overloaded },
    ];
  }
  if (snapshot.matches('waitingToRetry')) return [{ type: 'retry.due' }];
  return [];
}

const serializeState = (snapshot: StepSnapshot) =>
  JSON.stringify([snapshot.value, snapshot.context.attempt, snapshot.context.streamed]);

/** States a child's step rests in while the parent waits on its `task` call. */
const resting = ['requesting', 'waitingToRetry', 'executingTools'] as const;
const paths = getShortestPaths(stepMachine, {
  input,
  events,
  serializeState: serializeState as never,
}).filter((path) => resting.some((state) => path.state.matches(state)));

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

/** Drives the child's model along one abstract event. */
async function drive(tree: Tree, event: StepEvent, requestIndex: { value: number }): Promise<void> {
  const request = () => tree.gate.request(requestIndex.value);
  switch (event.type) {
    case 'model.streaming':
      (await request()).delta('partial ');
      break;
    case 'model.done':
      (await request()).answer('', [toolCall]);
      break;
    case 'model.error':
      (await request()).fail('overloaded', overloaded.retryAfterMs);
      requestIndex.value++;
      break;
    case 'retry.due':
      tree.clock.runNext();
      break;
    case 'step.begin':
      // The child's turn begins its first step as the child starts.
      break;
    default:
      throw new Error(`no stimulus for ${event.type}`);
  }
}

async function treeAlong(steps: { event: StepEvent; state: StepSnapshot }[]): Promise<Tree> {
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
  const requestIndex = { value: 0 };
  for (const { event, state } of steps) {
    if ((event.type as string) === 'xstate.init') continue;
    await drive(tree, event, requestIndex);
    await until(
      () => JSON.stringify(childStepState(tree)) === JSON.stringify(state.value),
      `child in ${JSON.stringify(state.value)}`,
    );
    if (state.matches('executingTools')) await until(() => wait.running.size === 1, 'the child tool runs');
  }
  return tree;
}

type Stop = 'cancel' | 'dispose' | 'system.dispose';

async function allLogs(sys: AgentSystem): Promise<Map<string, LogEvent[]>> {
  const logs = new Map<string, LogEvent[]>();
  for (const id of await sys.store.list()) logs.set(id, (await sys.store.load(id)).events);
  return logs;
}

const describePath = (path: (typeof paths)[number]) =>
  path.steps
    .map((step) => step.event.type)
    .filter((type) => (type as string) !== 'xstate.init')
    .join(' → ') || '(first request)';

describe('stopping a parent while its child rests in each state of the step chart', () => {
  it('covers the resting states reachable by the child', () => {
    expect(paths.map((path) => serializeState(path.state))).toEqual([
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
        const tree = await treeAlong(path.steps as { event: StepEvent; state: StepSnapshot }[]);
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
