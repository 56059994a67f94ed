// Drives the agent and turn charts' graph paths through the real runtime. A gated session store holds
// create/append/remove until the test lets them through, so states that only wait on the store
// (creating.session, creating.tools, rollingBack, a turn's ending, disposing.quiescing/flushing) can be
// observed and receive outside events; the gate provider and tool hold model requests and tool calls.

import { expect } from 'vitest';
import type { AnyActorRef, InspectionEvent } from 'xstate';
import { SimulatedClock } from '../../../src/core/clock.ts';
import { AgentStateError } from '../../../src/errors/agent-state-error.ts';
import type { Agent } from '../../../src/index.ts';
import { createAgentSystem } from '../../../src/index.ts';
import type { InboxItem } from '../../../src/machines/inbox.ts';
import type { AgentSystem } from '../../../src/runtime/create-agent-system.ts';
import type { AgentSystemOptions } from '../../../src/runtime/options.ts';
import { memoryStore } from '../../../src/session/memory-store.ts';
import { pendingInbox } from '../../../src/session/repair.ts';
import type { LoadedSession, LogEvent, SessionStore } from '../../../src/session/types.ts';
import { GateProvider, GateTool, settle } from '../../support/controllable.ts';
import { counterIds, expectResultsInModelOrder } from './driver.ts';

export type StoreOp = 'create' | 'append' | 'remove';

/** A memory store whose create/append/remove wait while held, and can be released or failed one by one. */
export class GateStore implements SessionStore {
  readonly kind = 'gate';
  private readonly inner = memoryStore();
  private readonly holding = new Set<StoreOp>();
  private waiting: { op: StoreOp; resolve: () => void; reject: (error: Error) => void }[] = [];
  private arrivals: { op: StoreOp; resolve: () => void }[] = [];

  /** Holds exactly `ops` from now on (calls already waiting stay waiting). */
  holdOnly(ops: Iterable<StoreOp>): void {
    this.holding.clear();
    for (const op of ops) this.holding.add(op);
  }

  pending(op: StoreOp): number {
    return this.waiting.filter((entry) => entry.op === op).length;
  }

  /** Lets the waiting `op` calls through, first waiting for one to arrive (the runtime may still be on its way). */
  async release(op: StoreOp): Promise<void> {
    await this.arrival(op);
    for (const entry of this.take(op)) entry.resolve();
  }

  async fail(op: StoreOp, error: Error): Promise<void> {
    await this.arrival(op);
    for (const entry of this.take(op)) entry.reject(error);
  }

  /**
   * Lets everything through while `during` runs, then holds what was held before. A tool call writes
   * the log ahead of running, so a test that holds appends must open them while it waits for a tool.
   */
  async whileOpen<T>(during: () => Promise<T>): Promise<T> {
    const saved = [...this.holding];
    this.open();
    try {
      return await during();
    } finally {
      this.holdOnly(saved);
    }
  }

  /** Stops holding and lets every waiting call through. */
  open(): void {
    this.holding.clear();
    for (const entry of this.waiting.splice(0)) entry.resolve();
  }

  async create(sessionId: string): Promise<void> {
    await this.gate('create');
    return this.inner.create(sessionId);
  }

  async append(sessionId: string, events: readonly LogEvent[]): Promise<void> {
    await this.gate('append');
    return this.inner.append(sessionId, events);
  }

  async remove(sessionId: string): Promise<void> {
    await this.gate('remove');
    return this.inner.remove(sessionId);
  }

  load(sessionId: string): Promise<LoadedSession> {
    return this.inner.load(sessionId);
  }

  exists(sessionId: string): Promise<boolean> {
    return this.inner.exists(sessionId);
  }

  list(): Promise<string[]> {
    return this.inner.list();
  }

  /** Resolves once a call of `op` waits (event-driven: real fs calls before it take unknown time). */
  private arrival(op: StoreOp): Promise<void> {
    if (this.pending(op) > 0) return Promise.resolve();
    return new Promise((resolve) => this.arrivals.push({ op, resolve }));
  }

  private take(op: StoreOp) {
    const taken = this.waiting.filter((entry) => entry.op === op);
    this.waiting = this.waiting.filter((entry) => entry.op !== op);
    return taken;
  }

  private gate(op: StoreOp): Promise<void> {
    if (!this.holding.has(op)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.waiting.push({ op, resolve, reject });
      const ready = this.arrivals.filter((arrival) => arrival.op === op);
      this.arrivals = this.arrivals.filter((arrival) => arrival.op !== op);
      for (const arrival of ready) arrival.resolve();
    });
  }
}

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

export type RigOptions = {
  agentId?: string;
  hook?: boolean;
  limits?: AgentSystemOptions['limits'];
  /** Tools as given to the system (defaults to one safe gate tool `probe`). */
  tools?: GateTool[];
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

  constructor(options: RigOptions = {}) {
    this.agentId = options.agentId ?? 'a';
    this.system = createAgentSystem({
      model: this.model,
      tools: (options.tools ?? [this.probe]).map((tool) => tool.tool),
      store: this.store,
      clock: this.clock,
      ids: counterIds(),
      projectInstructions: false,
      permissionMode: 'bypass',
      ...(options.limits ? { limits: options.limits } : {}),
      ...(options.hook ? { hooks: { preStep: this.hookGate.hook } } : {}),
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
    if (event.type !== '@xstate.actor') return;
    const ref = event.actorRef as AnyActorRef;
    // Agents are the children of the system's root (host) actor.
    if (ref._parent && !ref._parent._parent) this.agentRefs.push(ref);
    if (ref.id.startsWith('undo:') && this.agentRefs.some((agent) => isDescendant(ref, agent)))
      this.undos.push(ref.id);
  }
}

function isDescendant(ref: AnyActorRef, ancestor: AnyActorRef | undefined): boolean {
  for (let node = ref._parent; node; node = node._parent) if (node === ancestor) return true;
  return false;
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

/**
 * A cancel never drops queued input: the ids the log still shows as pending (queued, never claimed or
 * cleared) are exactly the items the real agent and its running turn still hold.
 */
export function expectInboxKept(rig: AgentRig): void {
  const snapshot = rig.ref.getSnapshot();
  if (snapshot.status !== 'active' || !rig.agent) return;
  const inMemory: InboxItem[] = [...(snapshot.context as { inbox: InboxItem[] }).inbox];
  const turn = rig.turnRef?.getSnapshot();
  if (turn?.status === 'active') inMemory.push(...(turn.context as { pending: InboxItem[] }).pending);
  const logged = pendingInbox(rig.agent.log()).map((item) => item.id);
  expect(inMemory.map((item) => item.id).sort(), 'pending inbox: memory vs log').toEqual(logged.sort());
}

/** Every `tool.call` has at most one `tool.result`, in model order. */
export function expectResultsSoFar(rig: AgentRig): void {
  if (rig.agent) expectResultsInModelOrder(rig.agent.log());
}

/**
 * Ends a path of a created agent: lets everything through, disposes (sharing any dispose already
 * under way) and checks: `disposed`, last event `session.end`, the store holds exactly the in-memory
 * log, every call has its result, API calls throw AgentStateError and nothing is appended afterwards.
 */
export async function disposeAndVerify(rig: AgentRig): Promise<void> {
  rig.store.open();
  rig.hookGate.allowAll();
  await until(() => rig.agent !== undefined || rig.creationError !== undefined);
  const agent = rig.live;
  await agent.dispose();
  await settleAll();
  expect(agent.state).toBe('disposed');
  const events = agent.log();
  expect(events.at(-1)?.type).toBe('session.end');
  expect(events.filter((event) => event.type === 'session.end')).toHaveLength(1);
  expect((await rig.store.load(agent.id)).events).toEqual(events);
  expectResultsInModelOrder(events, true);
  const count = events.length;
  expect(() => agent.followup('late')).toThrow(AgentStateError);
  expect(() => agent.steer('late')).toThrow(AgentStateError);
  expect(() => agent.cancel()).toThrow(AgentStateError);
  rig.clock.advance(3_600_000);
  await settleAll();
  expect(agent.log()).toHaveLength(count);
  expect(rig.system.list()).toEqual([]);
  await rig.system.dispose();
}

/**
 * Ends a path whose creation failed or was disposed: `createAgent` rejected with `error`, the undos ran
 * for exactly the completed stages in reverse, the store has no such session, the system has no such
 * agent, and a new agent with the same id can then be created.
 */
export async function rollbackAndVerify(
  rig: AgentRig,
  expected: {
    error: (error: unknown) => void;
    completed: readonly string[];
    final: 'failed' | 'disposed';
  },
): Promise<void> {
  rig.store.open();
  await until(() => rig.ref.getSnapshot().status !== 'active');
  await settleAll();
  expect(rig.agent).toBeUndefined();
  expected.error(rig.creationError);
  expect(rig.ref.getSnapshot().value).toBe(expected.final);
  expect(rig.undos).toEqual([...expected.completed].reverse().map((stage) => `undo:${stage}`));
  expect(await rig.store.exists(rig.agentId)).toBe(false);
  expect(await rig.store.list()).toEqual([]);
  expect(rig.system.list()).toEqual([]);
  const again = await rig.system.createAgent({ id: rig.agentId, tools: [rig.probe.tool] });
  expect(again.state).toBe('ready.idle');
  expect(again.log().map((event) => event.type)).toEqual(['session.start']);
  await again.dispose();
  await rig.system.dispose();
}
