// The resume-race path of the agent chart: two resumes of one session both pass the early check, and
// the second to publish must roll back. A resume's stages wait on no store call, so the gate store
// cannot hold them where the path rests; instead inspection records every move of both agent actors,
// and the moves are compared with the path afterwards, one event at a time.

import { expect } from 'vitest';
import type { AnyActorRef, AnyEventObject, SnapshotFrom } from 'xstate';
import { ConfigError } from '../../../src/errors/config-error.ts';
import type { Agent } from '../../../src/index.ts';
import type { agentMachine } from '../../../src/machines/agent.ts';
import type { AgentRig } from './agent-driver.ts';

type Snapshot = SnapshotFrom<typeof agentMachine>;

/**
 * One move of an agent actor, written the same way for a path's step and for what inspection saw: the
 * event (with the stage it names), then the state and the completed stages it led to.
 */
function moveLine(event: AnyEventObject, value: unknown, stages: readonly string[]): string {
  const name = typeof event.stage === 'string' ? `${event.type}:${event.stage}` : event.type;
  return `${name} → ${JSON.stringify(value)} [${stages.join(', ')}]`;
}

/**
 * Runs the race after a first agent created the session, then checks it move by move (so a divergence
 * shows at the event where it happened): the loser follows `path` (from the initial state) one event at
 * a time and then rolls back; the winner takes the same stages to ready; at no move of either has
 * anything reached the store. Then the outcome: one resume rejected, nothing written, one agent live.
 */
export async function raceAlong(
  rig: AgentRig,
  path: readonly { event: AnyEventObject; state: Snapshot }[],
): Promise<void> {
  const first = await rig.system.createAgent({ id: rig.agentId });
  await first.dispose();
  const stored = (await rig.store.load(rig.agentId)).events;
  const writes = rig.store.writes.length;
  const other = rig.system.resumeAgent(rig.agentId);
  rig.launch(() => rig.system.resumeAgent(rig.agentId));
  const [one, two] = await Promise.allSettled([other, rig.creation!]);
  const racers = rig.agentRefs.slice(-2);
  const failed = racers.filter((ref) => ref.getSnapshot().value === 'failed');
  expect(failed, 'racers that failed').toHaveLength(1);
  const [loser, winner] = [failed[0]!, racers.find((ref) => ref !== failed[0])!];

  const expected = path.map(({ event, state }) =>
    moveLine(event, state.value, state.context.completedStages),
  );
  const linesOf = (ref: AnyActorRef) =>
    rig.moves.get(ref)!.map((move) => moveLine(move.event, move.value, move.completedStages));
  expect(linesOf(loser), 'the losing resume, move by move').toEqual([
    ...expected,
    'undo.done:tools → "rollingBack" [session]',
    'undo.done:session → "failed" []',
  ]);
  expect(linesOf(winner), 'the winning resume, move by move').toEqual([
    ...expected.slice(0, -1),
    'setup.done:publish → {"ready":"idle"} [session, tools, publish]',
  ]);
  const storeWrites = [loser, winner].flatMap((ref) => rig.moves.get(ref)!.map((move) => move.storeWrites));
  expect(storeWrites, 'store writes by each move').toEqual(storeWrites.map(() => writes));

  expect([one.status, two.status].sort()).toEqual(['fulfilled', 'rejected']);
  const lost = one.status === 'rejected' ? one : (two as PromiseRejectedResult);
  const won = one.status === 'fulfilled' ? one : (two as PromiseFulfilledResult<Agent>);
  expect(lost.reason).toBeInstanceOf(ConfigError);
  expect(rig.undos).toEqual(['undo:tools', 'undo:session']);
  expect((await rig.store.load(rig.agentId)).events).toEqual(stored);
  expect(rig.system.list()).toEqual([won.value]);
  await rig.system.dispose();
}
