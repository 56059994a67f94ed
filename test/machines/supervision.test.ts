// The supervision chart on its own, with pure `initialTransition`/`transition`: what the graph suite cannot
// drive through the runtime (a stop or a failure while a restart is under way), a resume that finds a
// restart pending, no policy, the backoff doubling, and which turn ends are failures.
import { describe, expect, it } from 'vitest';
import { initialTransition, type SnapshotFrom, transition } from 'xstate';
import {
  type SupervisionEvent,
  type SupervisionInput,
  supervisionMachine,
} from '../../src/machines/supervision.ts';
import { failureOf, restartDelay } from '../../src/machines/supervision-policy.ts';
import type { StopReason } from '../../src/session/types.ts';

type Snapshot = SnapshotFrom<typeof supervisionMachine>;
const policy = { restart: 'on-failure' as const, maxRestarts: 2, backoffMs: 1_000 };
const input = (overrides: Partial<SupervisionInput> = {}): SupervisionInput => ({
  childId: 'c',
  policy,
  restarts: 0,
  ...overrides,
});

function run(start: SupervisionInput, events: SupervisionEvent[]): { snapshot: Snapshot; actions: string[] } {
  let [snapshot, actions] = initialTransition(supervisionMachine, start);
  const all = actions.map((action) => action.type);
  for (const event of events) {
    [snapshot, actions] = transition(supervisionMachine, snapshot, event);
    all.push(...actions.map((action) => action.type));
  }
  return { snapshot, actions: all };
}

const failed: SupervisionEvent = { type: 'child.ended', reason: 'model_error', error: 'overloaded' };

describe('supervision chart', () => {
  it('a failure decides a restart (reported with its attempt and wait), waits, restarts and watches again', () => {
    const { snapshot, actions } = run(input(), [failed, { type: 'retry.due' }, { type: 'child.restarted' }]);
    expect(snapshot.value).toBe('running');
    expect(snapshot.context).toMatchObject({
      restarts: 1,
      delayMs: 1_000,
      failure: { reason: 'model_error', error: 'overloaded' },
    });
    expect(actions.filter((type) => type === 'reportRestart')).toHaveLength(1);
  });

  it('a stop or a failure while a restart is under way', () => {
    const restarting = [failed, { type: 'retry.due' } as const];
    expect(run(input(), [...restarting, { type: 'supervision.stop' }]).snapshot.value).toBe('stopped');
    const crashed = run(input(), [...restarting, { type: 'child.crashed', error: 'store down' }]).snapshot;
    expect([crashed.value, crashed.context.restarts, crashed.context.delayMs]).toEqual([
      'backingOff',
      2,
      2_000,
    ]);
    const spent = run(input({ restarts: 1 }), [
      ...restarting,
      { type: 'child.crashed', error: 'store down' },
    ]);
    expect([spent.snapshot.value, spent.snapshot.context.failure]).toEqual([
      'escalated',
      { reason: 'crashed', error: 'store down' },
    ]);
  });

  it('a resume with a restart pending waits what is left of it, without reporting it again', () => {
    const pending = { reason: 'model_error' as const, delayMs: 250 };
    const { snapshot, actions } = run(input({ restarts: 1, pending }), []);
    expect([snapshot.value, snapshot.context.delayMs, snapshot.context.restarts]).toEqual([
      'backingOff',
      250,
      1,
    ]);
    expect(actions).not.toContain('reportRestart');
  });

  it('without a policy every end is the child result: done, never escalated', () => {
    for (const event of [failed, { type: 'child.crashed', error: 'x' } as const])
      expect(run(input({ policy: undefined }), [event]).snapshot.value).toBe('done');
    expect(run(input({ policy: { ...policy, maxRestarts: 0 } }), [failed]).snapshot.value).toBe('escalated');
    // A stop while the child runs is its cancel: its turn's end is what ends the supervision.
    expect(run(input(), [{ type: 'supervision.stop' }]).snapshot.value).toBe('running');
  });

  it('only model_error is a failure among turn ends; the backoff doubles up to what a timer can wait', () => {
    const reasons: StopReason[] = [
      'completed',
      'max_steps',
      'unknown_tool_limit',
      'canceled',
      'model_error',
      'blocked',
      'max_tokens',
      'interrupted',
      'invalid_output',
    ];
    expect(reasons.filter((reason) => failureOf(reason) !== undefined)).toEqual(['model_error']);
    expect([1, 2, 3].map((attempt) => restartDelay(policy, attempt))).toEqual([1_000, 2_000, 4_000]);
    expect(restartDelay({ ...policy, backoffMs: 2 ** 30 }, 5)).toBe(2 ** 31 - 1);
  });
});
