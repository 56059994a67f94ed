// Graph paths of the background-agent states, each driven through the real runtime: the turn's
// `waitingForAgents` (a child started with `wait`: its result, a message, a stop, a cancel) and the agent's
// release of its children (a cancel releases them at once; dispose waits in `disposing.releasingChildren`).
// The parent and the child talk to gate models the test answers; the runtime passes the rest by itself.
// At every state the runtime rests in, the real chart must be where the path is; at the end every session
// is closed (each child's before its parent's), every call has one result and all mail is paired.
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { AnyActorRef, AnyStateMachine, EventFromLogic, SnapshotFrom } from 'xstate';
import type { AgentEvent } from '../../src/machines/agent.ts';
import { agentMachine } from '../../src/machines/agent.ts';
import { type TurnEvent, turnMachine } from '../../src/machines/turn.ts';
import type { ModelEvent, ModelRequest, Provider } from '../../src/providers/types.ts';
import type { Agent, RunResult } from '../../src/runtime/agent-handle.ts';
import { type AgentSystem, createAgentSystem } from '../../src/runtime/create-agent-system.ts';
import { backgroundAgentTools } from '../../src/tools/background-agents.ts';
import { GateProvider, type PendingRequest, settle } from '../support/controllable.ts';
import { assertCallsPaired, counterIds, firstUser, until } from '../support/crash-kit.ts';
import { expectMailPaired, storedLogs, TickingSimulatedClock } from '../support/mail-kit.ts';
import {
  backgroundAgentEvents,
  backgroundAgentInput,
  backgroundTurnEvents,
  backgroundTurnInput,
  child,
  labelBackgroundAgentEvent,
  labelBackgroundTurnEvent,
  serializeBackgroundAgent,
  serializeBackgroundTurn,
} from './catalogues/background.ts';
import { type ChartPath, chartModel, type EventTable, pathName } from './support/model.ts';

/** One parent and its background child, each on a gate model the test answers. */
class Tree {
  readonly parentModel = new GateProvider();
  readonly childModel = new GateProvider();
  readonly system: AgentSystem;
  parent!: Agent;
  run: Promise<RunResult> | undefined;
  disposing: Promise<void> | undefined;

  constructor() {
    const route: Provider = {
      name: 'tree',
      model: 'gate-model',
      stream: (request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent> =>
        (firstUser(request) === 'child' ? this.childModel : this.parentModel).stream(request, signal),
    };
    this.system = createAgentSystem({
      model: route,
      tools: backgroundAgentTools(),
      ids: counterIds(),
      clock: new TickingSimulatedClock(1_000),
      projectInstructions: false,
      permissionMode: 'bypass',
      // The turn catalogue's limit: a turn that has heard from its child after three steps ends there.
      limits: { maxSteps: backgroundTurnInput.limits.maxSteps },
    });
  }

  get agentRef(): AnyActorRef {
    return (this.parent as unknown as { ref: AnyActorRef }).ref;
  }

  get turnRef(): AnyActorRef | undefined {
    return this.agentRef.getSnapshot().children.turn as AnyActorRef | undefined;
  }

  /** The open request of `model` (waits for one to arrive). */
  async open(model: GateProvider, what: string): Promise<PendingRequest> {
    const find = () => model.requests.find((request) => !request.finished && !request.aborted);
    await until(() => find() !== undefined, what);
    return find()!;
  }

  start(): void {
    this.run = this.parent.run('go');
    this.run.catch(() => undefined);
  }

  async spawn(wait: boolean): Promise<void> {
    const call = {
      id: 'spawn',
      name: 'spawn_agent',
      input: { prompt: 'child', ...(wait ? {} : { wait: false }) },
    };
    (await this.open(this.parentModel, 'the parent asks the model')).answer('', [call]);
    await until(() => this.parent.children().length === 1, 'the child is started');
  }

  /** Ends the path: disposes everything and checks every session of the tree. */
  async verify(): Promise<void> {
    await (this.disposing ?? this.parent.dispose());
    await this.system.dispose();
    const logs = await storedLogs(this.system.store);
    for (const [id, events] of logs) {
      assertCallsPaired(events, id);
      expect(events.at(-1)?.type, `${id} ended`).toBe('session.end');
    }
    const parentEnd = logs.get('parent')!.at(-1)!;
    const childEnd = logs.get(child)?.at(-1);
    if (childEnd) expect(childEnd.ts, 'the child ends first').toBeLessThan(parentEnd.ts);
    expectMailPaired(logs);
  }
}

/** Runs `path` through `stimuli`, comparing the real chart at every state the runtime rests in. */
async function drive<M extends AnyStateMachine>(
  graph: { run: (path: ChartPath<M>, tables: { events: EventTable<M> }) => Promise<void> },
  path: ChartPath<M>,
  plan: {
    /** An event the runtime makes by itself (not driven), by its index among the path's events. */
    byItself: (event: EventFromLogic<M>, index: number) => boolean;
    stimuli: EventTable<M>;
    restsAt: (state: SnapshotFrom<M>) => Promise<void>;
  },
): Promise<void> {
  const steps = path.steps.slice(1);
  const events: Record<string, (event: EventFromLogic<M>, at: { index: number }) => Promise<void>> = {};
  for (const step of steps) {
    const type = step.event.type as EventFromLogic<M>['type'];
    events[type] = async (event, { index }) => {
      if (!plan.byItself(event, index)) {
        const stimulus = plan.stimuli[type] as ((event: unknown) => unknown) | undefined;
        if (!stimulus) throw new Error(`no stimulus for ${event.type}`);
        await stimulus(event);
      }
      // Compared where the runtime rests: after the last event the runtime makes by itself.
      const next = steps[index + 1];
      if (next && plan.byItself(next.event, index + 1)) return;
      await settle(10);
      await plan.restsAt(steps[index]!.state);
    };
  }
  await graph.run(path, { events: events as EventTable<M> });
}

const turnGraph = chartModel(turnMachine, {
  input: backgroundTurnInput,
  events: backgroundTurnEvents,
  serializeState: serializeBackgroundTurn,
});

describe('turn chart graph paths with a background child (waitingForAgents)', () => {
  const paths = turnGraph.simplePaths();
  it('has the expected number of simple paths', () => {
    expect(paths).toHaveLength(31);
    expect(
      paths.filter((path) => path.steps.some((step) => step.state.matches('waitingForAgents'))),
    ).toHaveLength(24);
  });

  const byItself = (event: TurnEvent) =>
    event.type === 'log.flushed' ||
    (event.type === 'step.done' &&
      ((event as { spawned?: boolean }).spawned || event.output.outcome === 'canceled'));

  for (const path of paths) {
    it(`${pathName(path, labelBackgroundTurnEvent, { join: ' > ', empty: '(created)' })} → ${JSON.stringify(path.state.value)}`, async () => {
      const tree = new Tree();
      tree.parent = await tree.system.createAgent({ id: 'parent' });
      const childRequest = () => tree.open(tree.childModel, 'the child asks its model');
      let notes = 0;
      await drive(turnGraph, path, {
        byItself,
        stimuli: {
          'turn.begin': () => tree.start(),
          'agents.owe': () => tree.spawn(true),
          'step.done': async () => (await tree.open(tree.parentModel, 'the parent asks')).answer('Done.'),
          'inbox.nextStep': async (event) =>
            event.items[0]?.kind === 'result'
              ? (await childRequest()).answer('Child result.')
              : (await childRequest()).answer('', [
                  { id: `note${++notes}`, name: 'send_message', input: { to: 'parent', text: 'note' } },
                ]),
          'agents.heard': () => void tree.parent.children()[0]!.stop(),
          'turn.cancel': () => tree.parent.cancel(),
        },
        restsAt: async (state) => {
          // The runtime rests while a step waits for the model and while the turn waits for its child.
          const rests =
            (state.matches('stepping') && !state.context.cancelCause) || state.matches('waitingForAgents');
          if (!rests) return;
          const real = () => tree.turnRef?.getSnapshot();
          await until(
            () => isDeepStrictEqual(real()?.value, state.value),
            `turn in ${JSON.stringify(state.value)}`,
          );
          expect(real()!.context.owed).toEqual(state.context.owed);
        },
      });
      if (path.state.matches('done')) expect((await tree.run)?.reason).toBe(path.state.context.reason);
      await tree.verify();
    });
  }
});

const agentGraph = chartModel(agentMachine, {
  input: backgroundAgentInput,
  events: backgroundAgentEvents,
  serializeState: serializeBackgroundAgent,
});

describe('agent chart graph paths with a background child (releasingChildren)', () => {
  const paths = agentGraph.simplePaths();
  it('has the expected number of simple paths', () => {
    expect(paths).toHaveLength(36);
    const releasing = (path: (typeof paths)[number]) =>
      path.steps.some((step) => step.state.matches({ disposing: 'releasingChildren' }));
    expect(paths.filter(releasing)).toHaveLength(12);
  });

  const outside = new Set(['agent.followup', 'agent.childStarted', 'agent.cancel', 'agent.dispose']);
  for (const path of paths) {
    // A turn's end is the model's final answer, unless the path cancelled or disposed the turn first.
    const byItself = (event: AgentEvent, index: number) =>
      !outside.has(event.type) && !(event.type === 'xstate.done.actor.turn' && !cancelledBefore(path, index));
    it(`${pathName(path, labelBackgroundAgentEvent, { join: ' > ', empty: '(created)' })} → ${JSON.stringify(path.state.value)}`, async () => {
      const tree = new Tree();
      tree.parent = await tree.system.createAgent({ id: 'parent' });
      await drive(agentGraph, path, {
        byItself,
        stimuli: {
          'agent.followup': () => tree.start(),
          'agent.childStarted': () => tree.spawn(false),
          'xstate.done.actor.turn': async () =>
            (await tree.open(tree.parentModel, 'the parent asks')).answer('Done.'),
          'agent.cancel': () => tree.parent.cancel(),
          'agent.dispose': () => {
            tree.disposing = tree.parent.dispose();
          },
        },
        restsAt: async (state) => {
          // It rests when ready with nothing passing by itself: no release under way, no cancelled turn ending.
          const { children, turnAlive, held } = state.context;
          if (!state.matches('ready') || children.releasing || (turnAlive && held)) return;
          const real = () => tree.agentRef.getSnapshot();
          await until(
            () => isDeepStrictEqual(real().value, state.value),
            `agent in ${JSON.stringify(state.value)}`,
          );
          expect(real().context.children).toEqual(state.context.children);
          const running = tree.parent.children().filter((one) => one.status === 'running');
          expect(running.map((one) => one.id)).toEqual(state.context.children.live);
        },
      });
      await tree.verify();
    });
  }
});

/** Whether the path cancelled or disposed before its event `index` (then a turn's end is the runtime's own). */
function cancelledBefore(path: ChartPath<typeof agentMachine>, index: number): boolean {
  return path.steps
    .slice(1, index + 1)
    .some((step) => step.event.type === 'agent.cancel' || step.event.type === 'agent.dispose');
}
