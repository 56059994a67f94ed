// The tree the background-agent graph suites drive: one parent and its background child, each on a gate
// model the test answers, and the driver that runs a path through it, comparing the real chart wherever
// the runtime rests.
import { expect } from 'vitest';
import type { AnyActorRef, AnyStateMachine, EventFromLogic, SnapshotFrom } from 'xstate';
import type { ModelEvent, ModelRequest, Provider } from '../../../src/providers/types.ts';
import type { Agent, RunResult } from '../../../src/runtime/agent-handle.ts';
import { type AgentSystem, createAgentSystem } from '../../../src/runtime/create-agent-system.ts';
import { backgroundAgentTools } from '../../../src/tools/background-agents.ts';
import type { OutputOptions } from '../../../src/tools/output-schema.ts';
import { GateProvider, type PendingRequest, settle } from '../../support/controllable.ts';
import { assertCallsPaired, counterIds, firstUser, until } from '../../support/crash-kit.ts';
import { expectMailPaired, storedLogs, TickingSimulatedClock } from '../../support/mail-kit.ts';
import { backgroundTurnInput, child } from '../catalogues/background.ts';
import type { ChartPath, EventTable } from './model.ts';

/** One parent and its background child, each on a gate model the test answers. */
export class Tree {
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

  /** The parent's run, typed when `options` asks for output. */
  start(options?: OutputOptions): void {
    this.run = this.parent.run('go', options);
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
export async function drive<M extends AnyStateMachine>(
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
