// A small driver for graph-path tests: builds a real agent system on controllable doubles (GateProvider,
// GateTool, SimulatedClock, counter ids, memory store), finds machines in the live actor tree, and
// checks the invariants every path must keep. Machine-agnostic so each chart's graph test can share it.
import { expect } from 'vitest';
import { SimulatedClock } from '../../../src/core/clock.ts';
import { AgentStateError } from '../../../src/errors/agent-state-error.ts';
import type { Agent, RunResult } from '../../../src/index.ts';
import { type ActorSnapshot, createAgentSystem } from '../../../src/index.ts';
import type { AgentSystem } from '../../../src/runtime/create-agent-system.ts';
import type { AgentSystemOptions } from '../../../src/runtime/options.ts';
import { memoryStore } from '../../../src/session/memory-store.ts';
import type { LogEvent, SessionStore } from '../../../src/session/types.ts';
import type { AnyTool } from '../../../src/tools/define-tool.ts';
import { GateProvider, type PendingRequest, settle } from '../../support/controllable.ts';

/** Any test tool double that exposes the tool it controls (GateTool, HoldingTool, ...). */
export type ControlledTool = { readonly tool: AnyTool };

/** A counter id generator: `id1`, `id2`, … */
export function counterIds(prefix = 'id'): () => string {
  let n = 0;
  return () => `${prefix}${++n}`;
}

/** One real agent on controllable doubles, plus what a path driver needs to reach it. */
export type Harness = {
  model: GateProvider;
  clock: SimulatedClock;
  store: SessionStore;
  system: AgentSystem;
  agent: Agent;
  /** Tools by name, as passed in. */
  tools: ReadonlyMap<string, ControlledTool>;
  /** The run started by `startRun`, if any. */
  run: Promise<RunResult> | undefined;
  /** Index of the next model request the driver will answer. */
  nextRequest: number;
};

export type HarnessOptions = Partial<
  Omit<AgentSystemOptions, 'model' | 'tools' | 'clock' | 'ids' | 'store'>
> & {
  tools?: ControlledTool[];
  agentId?: string;
};

/** Creates a system and one agent; permission mode `bypass` and no project instructions unless set. */
export async function createHarness(options: HarnessOptions = {}): Promise<Harness> {
  const { tools = [], agentId = 'a', ...rest } = options;
  const model = new GateProvider();
  const clock = new SimulatedClock(1_000);
  const store = memoryStore();
  const system = createAgentSystem({
    projectInstructions: false,
    permissionMode: 'bypass',
    ...rest,
    model,
    tools: tools.map((tool) => tool.tool),
    clock,
    ids: counterIds(),
    store,
  });
  const agent = await system.createAgent({ id: agentId });
  const byName = new Map(tools.map((tool) => [tool.tool.name, tool]));
  return { model, clock, store, system, agent, tools: byName, run: undefined, nextRequest: 0 };
}

/** Starts a turn with `message` and lets it reach its first model request. */
export async function startRun(harness: Harness, message = 'go'): Promise<void> {
  const run = harness.agent.run(message);
  // A run that ends by dispose rejects; the path checks the log instead, so keep the rejection observed.
  run.catch(() => undefined);
  harness.run = run;
  await settle();
}

/** The model request the driver should answer next (waits for it to arrive). */
export async function currentRequest(harness: Harness): Promise<PendingRequest> {
  return harness.model.request(harness.nextRequest);
}

/** Moves on to the next model request (after a done or an error ended the current one). */
export function requestEnded(harness: Harness): void {
  harness.nextRequest++;
}

/** Finds an actor by its id path from the agent root, e.g. `['turn', 'step', 'batch']`. */
export function findActor(root: ActorSnapshot, path: readonly string[]): ActorSnapshot | undefined {
  let node: ActorSnapshot | undefined = root;
  for (const id of path) {
    node = node?.children.find((child) => child.id === id);
    if (!node) return undefined;
  }
  return node;
}

/** The live actor at `path` of the harness's agent, or undefined when it is not alive. */
export function actorAt(harness: Harness, path: readonly string[]): ActorSnapshot | undefined {
  return findActor(harness.agent.snapshot(), path);
}

/** A compact view of log events for exact sequence assertions: `[type, callId?, outcome?]`. */
export type LogTuple = [string] | [string, string] | [string, string, string];

export function logTuples(events: readonly LogEvent[], from = 0): LogTuple[] {
  return events.slice(from).map((event): LogTuple => {
    const callId = typeof event.data.callId === 'string' ? event.data.callId : undefined;
    const outcome = typeof event.data.outcome === 'string' ? event.data.outcome : undefined;
    if (callId === undefined) return [event.type];
    return outcome === undefined ? [event.type, callId] : [event.type, callId, outcome];
  });
}

/**
 * Every `tool.call` has at most one `tool.result`, no result comes without its call, and results are
 * committed in model order: within each step, result ids are a prefix of the call ids in order. With
 * `complete`, every call has exactly one result.
 */
export function expectResultsInModelOrder(events: readonly LogEvent[], complete = false): void {
  const callsByStep = new Map<string, string[]>();
  const resultsByStep = new Map<string, string[]>();
  for (const event of events) {
    const key = `${event.turn}:${event.step}`;
    const target =
      event.type === 'tool.call' ? callsByStep : event.type === 'tool.result' ? resultsByStep : undefined;
    if (!target) continue;
    target.set(key, [...(target.get(key) ?? []), String(event.data.callId)]);
  }
  for (const [key, results] of resultsByStep) {
    const calls = callsByStep.get(key) ?? [];
    expect(new Set(results).size, `duplicate tool.result in step ${key}`).toBe(results.length);
    expect(results, `results of step ${key} follow model order`).toEqual(calls.slice(0, results.length));
  }
  if (complete) {
    for (const [key, calls] of callsByStep)
      expect(resultsByStep.get(key) ?? [], `step ${key}`).toEqual(calls);
  }
}

/**
 * Ends a path: disposes the agent and checks that it ended `disposed`, the last event is `session.end`,
 * the store holds exactly the in-memory log, every call has its result, and nothing is appended after.
 */
export async function disposeAndCheck(harness: Harness): Promise<void> {
  const { agent, store, system, clock } = harness;
  let disposed = false;
  const disposing = agent.dispose().then(() => {
    disposed = true;
  });
  // Calls that ignore their abort are reported after a grace period on the clock: let those timers run.
  for (let round = 0; round < 50 && !disposed; round++) {
    await settle();
    if (!disposed) clock.runNext();
  }
  await disposing;
  await settle();
  expect(agent.state).toBe('disposed');
  const events = agent.log();
  expect(events.at(-1)?.type).toBe('session.end');
  expect((await store.load(agent.id)).events).toEqual(events);
  expectResultsInModelOrder(events, true);
  const count = events.length;
  expect(() => agent.followup('after dispose')).toThrow(AgentStateError);
  harness.clock.advance(3_600_000);
  await settle();
  expect(agent.log()).toHaveLength(count);
  await system.dispose();
}
