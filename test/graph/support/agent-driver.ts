// Drives the agent and turn charts' graph paths through the real runtime: one system with one agent on
// controllable doubles. The gate store (gate-store.ts) holds store calls so states that wait on it can be
// observed; the gate provider, tool and pre-step hook hold model requests, tool calls and hook answers.

import { expect } from 'vitest';
import type { AnyActorRef, AnyEventObject, InspectionEvent, SnapshotFrom, StateValue } from 'xstate';
import { SimulatedClock } from '../../../src/core/clock.ts';
import type { Agent } from '../../../src/index.ts';
import { createAgentSystem } from '../../../src/index.ts';
import type { agentMachine } from '../../../src/machines/agent.ts';
import type { AgentSystem } from '../../../src/runtime/create-agent-system.ts';
import type { AgentSystemOptions } from '../../../src/runtime/options.ts';
import { GateProvider, GateTool, type PendingRequest, settle } from '../../support/controllable.ts';
import { counterIds } from './driver.ts';
import { GateStore } from './gate-store.ts';

/** A pre-step hook whose every call waits until the test allows or vetoes it. */
export class HookGate {
  private queue: ((result: undefined | { veto: string }) => void)[] = [];
  calls = 0;

  readonly hook = (): Promise<undefined | { veto: string }> =>
    new Promise((resolve) => {
      this.calls++;
      this.queue.push(resolve);
    });

  get waiting(): number {
    return this.queue.length;
  }

  answer(result: undefined | { veto: string }): void {
    const resolve = this.queue.shift();
    if (!resolve) throw new Error('no pre-step hook call is waiting');
    resolve(result);
  }

  allowAll(): void {
    for (const resolve of this.queue.splice(0)) resolve(undefined);
  }
}

/** One event an agent actor processed and the state it led to, as inspection reported it. */
export type AgentMove = {
  event: AnyEventObject;
  value: StateValue;
  completedStages: readonly string[];
  /** How many writes had reached the store by then. */
  storeWrites: number;
};

export type RigOptions = {
  agentId?: string;
  hook?: boolean;
  /** A `sessionEnd` hook that answers at once, so dispose waits in `disposing.endingSession`. */
  sessionEndHook?: boolean;
  limits?: AgentSystemOptions['limits'];
  /** Tools as given to the system (defaults to one safe gate tool `probe`). */
  tools?: GateTool[];
  compaction?: AgentSystemOptions['compaction'];
  /** The gate model's context window (default: none, so the runtime's default). */
  contextWindow?: number;
};

/** One system with one agent being created or alive, on controllable doubles. */
export class AgentRig {
  readonly agentId: string;
  readonly model = new GateProvider();
  readonly clock = new SimulatedClock(1_000);
  readonly store = new GateStore();
  readonly probe = new GateTool('probe', { safe: true });
  readonly hookGate = new HookGate();
  readonly system: AgentSystem;
  /** Undo actors of this agent, in the order they were spawned. */
  readonly undos: string[] = [];
  agent: Agent | undefined;
  creation: Promise<Agent> | undefined;
  creationError: unknown;
  /** Every agent actor with this id, in spawn order (a resume race spawns two). */
  readonly agentRefs: AnyActorRef[] = [];
  /** What each agent actor went through, event by event from its start. */
  readonly moves = new Map<AnyActorRef, AgentMove[]>();

  constructor(options: RigOptions = {}) {
    this.agentId = options.agentId ?? 'a';
    if (options.contextWindow) Object.assign(this.model, { contextWindow: options.contextWindow });
    this.system = createAgentSystem({
      model: this.model,
      tools: (options.tools ?? [this.probe]).map((tool) => tool.tool),
      store: this.store,
      clock: this.clock,
      ids: counterIds(),
      projectInstructions: false,
      permissionMode: 'bypass',
      ...(options.limits ? { limits: options.limits } : {}),
      hooks: {
        ...(options.hook ? { preStep: this.hookGate.hook } : {}),
        ...(options.sessionEndHook ? { sessionEnd: [() => undefined] } : {}),
      },
      ...(options.compaction ? { compaction: options.compaction } : {}),
    });
    this.system.inspect((event) => this.observe(event));
  }

  /** Starts `createAgent` (or another way to create the agent) without waiting for it. */
  launch(start: () => Promise<Agent> = () => this.system.createAgent({ id: this.agentId })): void {
    this.creation = start();
    this.creation.then(
      (agent) => {
        this.agent = agent;
      },
      (error: unknown) => {
        this.creationError = error;
      },
    );
  }

  /** The live agent handle (the path reached `ready`). */
  get live(): Agent {
    if (!this.agent) throw new Error(`agent ${this.agentId} was not created`);
    return this.agent;
  }

  /** The latest agent actor, found through inspection (a handle exists only after creation). */
  get ref(): AnyActorRef {
    const ref = this.agentRefs.at(-1);
    if (!ref) throw new Error(`no agent actor for ${this.agentId}`);
    return ref;
  }

  /** The running turn actor, if any. */
  get turnRef(): AnyActorRef | undefined {
    return this.ref.getSnapshot().children.turn as AnyActorRef | undefined;
  }

  /** Sends an event to the agent actor directly (used while no handle exists yet). */
  send(event: { type: 'agent.dispose' }): void {
    this.ref.send(event);
  }

  private observe(event: InspectionEvent): void {
    const ref = event.actorRef as AnyActorRef;
    if (event.type === '@xstate.snapshot') this.record(ref, event.event, event.snapshot);
    if (event.type !== '@xstate.actor') return;
    // Agents are the children of the system's root (host) actor.
    if (ref._parent && !ref._parent._parent) {
      this.agentRefs.push(ref);
      this.moves.set(ref, []);
    }
    if (ref.id.startsWith('undo:') && this.agentRefs.some((agent) => isDescendant(ref, agent)))
      this.undos.push(ref.id);
  }

  private record(ref: AnyActorRef, event: AnyEventObject, snapshot: unknown): void {
    const { value, context } = snapshot as SnapshotFrom<typeof agentMachine>;
    // Only agent actors have an entry; the moves of their turns, steps and tools are not recorded.
    this.moves.get(ref)?.push({
      event,
      value,
      completedStages: [...context.completedStages],
      storeWrites: this.store.writes.length,
    });
  }
}

function isDescendant(ref: AnyActorRef, ancestor: AnyActorRef | undefined): boolean {
  for (let node = ref._parent; node; node = node._parent) if (node === ancestor) return true;
  return false;
}

/** Answers whatever the running turn asks the model until it has ended (one more `turn.end`). */
export async function finishTurn(rig: AgentRig): Promise<void> {
  const ends = () => rig.live.log().filter((event) => event.type === 'turn.end').length;
  const before = ends();
  for (let round = 0; round < 5 && ends() === before; round++) {
    for (const request of rig.model.requests)
      if (!request.finished && !request.aborted) request.answer('Done.');
    await settleAll();
  }
  expect(ends()).toBe(before + 1);
}

/**
 * Ends a turn that only compacts: its writes are held (one by one: the flush before planning, then the
 * turn's own at its end), and a steering message may have given it a step to answer.
 */
export async function finishCompactingTurn(rig: AgentRig): Promise<void> {
  for (let round = 0; round < 10 && rig.turnRef; round++) {
    for (const request of rig.model.requests)
      if (!request.finished && !request.aborted) request.answer('Done.');
    if (rig.store.pending('append') > 0) await rig.store.release('append');
    await settleAll();
  }
  expect(rig.turnRef, 'the turn that only compacts has ended').toBeUndefined();
}

/** The model request the running turn waits on (waits for it to arrive). */
export async function openRequest(rig: AgentRig): Promise<PendingRequest> {
  const open = () => rig.model.requests.find((request) => !request.finished && !request.aborted);
  expect(await until(() => open() !== undefined), 'a model request is waiting').toBe(true);
  return open()!;
}

/** Lets actors, store calls and stage promises run (they chain many microtasks). */
export function settleAll(): Promise<void> {
  return settle(12);
}

/**
 * Lets the runtime run until `done()` holds (real file-system calls such as the workspace `stat` take
 * an unknown number of event-loop turns). Resolves with whether it did; the caller asserts.
 */
export async function until(done: () => boolean, rounds = 20_000): Promise<boolean> {
  for (let round = 0; round < rounds && !done(); round++) await settle(1);
  // On a loaded machine (the full suite runs child processes beside these tests) a file-system call can
  // outlast every round: give it real time too, a bounded wait that only a failing path runs out.
  const deadline = Date.now() + 5_000;
  while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  return done();
}
