// What every path of the agent and turn charts must keep, checked on the real agent: where it rests
// (the inbox and the results so far), and at its end (a clean dispose, or a complete rollback).

import { expect } from 'vitest';
import { AgentStateError } from '../../../src/errors/agent-state-error.ts';
import type { InboxItem } from '../../../src/machines/inbox.ts';
import { pendingInbox } from '../../../src/session/repair.ts';
import { type AgentRig, settleAll, until } from './agent-driver.ts';
import { expectResultsInModelOrder } from './driver.ts';

/**
 * A cancel never drops queued input: the ids the log still shows as pending (queued, never claimed or
 * cleared) are exactly the items the real agent and its running turn still hold. Needs the agent's
 * handle (the path reached `ready`); once the agent actor is done (the path checks its status), no
 * memory is left to compare.
 */
export function expectInboxKept(rig: AgentRig): void {
  const log = rig.live.log();
  const snapshot = rig.ref.getSnapshot();
  if (snapshot.status !== 'active') return;
  const inMemory: InboxItem[] = [...(snapshot.context as { inbox: InboxItem[] }).inbox];
  const turn = rig.turnRef?.getSnapshot();
  if (turn?.status === 'active') inMemory.push(...(turn.context as { pending: InboxItem[] }).pending);
  const logged = pendingInbox(log).map((item) => item.id);
  expect(inMemory.map((item) => item.id).sort(), 'pending inbox: memory vs log').toEqual(logged.sort());
}

/** Every `tool.call` has at most one `tool.result`, in model order. Needs the agent's handle. */
export function expectResultsSoFar(rig: AgentRig): void {
  expectResultsInModelOrder(rig.live.log());
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
