import { describe, expect, it } from 'vitest';
import { type AnyEventObject, initialTransition, type SnapshotFrom, transition } from 'xstate';
import type { LogEntry } from '../../src/machines/log-entry.ts';
import {
  type BatchDoneEvent,
  type BatchOutput,
  type CallCheck,
  type ToolBatchEvent,
  type ToolBatchInput,
  toolBatchMachine,
} from '../../src/machines/tool-batch.ts';
import {
  allCommitted,
  type BatchCall,
  callsToBegin,
  callsToCommit,
} from '../../src/machines/tool-batch-plan.ts';

type Snapshot = SnapshotFrom<typeof toolBatchMachine>;
type Action = { type: string; params?: unknown };

/** Log entries and spawn/stop/send actions as compact tuples, in the order the machine asked for them. */
function effects(actions: readonly Action[]): string[] {
  return actions.flatMap((action) => {
    const params = action.params as Record<string, unknown> | undefined;
    if (action.type === 'log') {
      const entry = params as LogEntry;
      const data = entry.data as { callId?: string; outcome?: string };
      return [['log', entry.type, data.callId, data.outcome].filter(Boolean).join(' ')];
    }
    if (action.type === 'xstate.spawnChild') return [`spawn ${params?.id as string}`];
    // A stop of a child that already ended resolves to no actor: harmless, shown as such.
    if (action.type === 'xstate.stopChild')
      return [`stop ${(params as { id?: string } | undefined)?.id ?? '(ended)'}`];
    if (action.type === 'xstate.sendTo') {
      const to = params?.to as { id?: string } | string;
      const event = params?.event as AnyEventObject | undefined;
      // The report to the step is read through `Batch.reported`, not listed with the effects.
      if (event?.type === 'batch.done') return [];
      return [`send ${typeof to === 'string' ? to : to.id} ${event?.type}`];
    }
    return [];
  });
}

/** The output a batch reported to its step in these actions, if it finished. */
function reportIn(actions: readonly Action[]): BatchOutput | undefined {
  for (const action of actions) {
    const event = (action.params as { event?: AnyEventObject } | undefined)?.event;
    if (action.type === 'xstate.sendTo' && event?.type === 'batch.done')
      return (event as BatchDoneEvent).output;
  }
  return undefined;
}

/**
 * A batch actor's snapshot advanced by pure transitions; `out` holds the effects of the last one and
 * `reported` what the batch reported to its step once every call had its result.
 */
class Batch {
  out: string[] = [];
  reported: BatchOutput | undefined;
  constructor(public snapshot: Snapshot) {}

  send(event: ToolBatchEvent): string[] {
    const [next, actions] = transition(toolBatchMachine, this.snapshot, event);
    this.snapshot = next;
    this.out = effects(actions);
    this.reported ??= reportIn(actions);
    return this.out;
  }

  /** Reported to the step and back in `idle`, waiting for the next batch. */
  get done(): boolean {
    return this.reported !== undefined && this.snapshot.value === 'idle';
  }
}

/** A batch actor (turn 2) that begins the calls of step 3. */
function start(ids: string[], maxParallel = 10): Batch {
  const input: ToolBatchInput = { turn: 2, maxParallel };
  const [snapshot] = initialTransition(toolBatchMachine, input);
  const batch = new Batch(snapshot);
  batch.send({
    type: 'batch.begin',
    step: 3,
    calls: ids.map((id) => ({ id, name: 'probe', input: { value: id } })),
  });
  return batch;
}

const run = (callId: string, safe = true): CallCheck => ({
  callId,
  input: { value: callId },
  safe,
  verdict: 'run',
});
const ask = (callId: string): CallCheck => ({
  callId,
  input: { value: callId },
  safe: false,
  verdict: 'ask',
});
const reject = (callId: string, extra: Partial<CallCheck> = {}): CallCheck => ({
  callId,
  input: 1,
  safe: false,
  verdict: 'reject',
  outcome: 'error',
  content: `bad ${callId}`,
  ...extra,
});
const ok = (callId: string): ToolBatchEvent => ({
  type: 'tool.settled',
  callId,
  outcome: 'ok',
  content: callId,
});
const phases = (snapshot: Snapshot) =>
  snapshot.context.calls.map((call) => `${call.callId}:${call.phase}${call.committed ? '+' : ''}`);

describe('toolBatchMachine (pure transitions)', () => {
  it('starts idle with its check actor, which lives as long as the turn', () => {
    const [snapshot, actions] = initialTransition(toolBatchMachine, { turn: 2, maxParallel: 4 });
    expect(snapshot.value).toBe('idle');
    expect(effects(actions)).toEqual(['spawn check']);
  });

  it('begins the next batch afresh: its own step, only its own calls, no leftover counts', () => {
    const batch = start(['c1']);
    batch.send({ type: 'batch.checked', checks: [reject('c1', { unknownTool: true })] });
    expect(batch.reported).toEqual({ results: 1, unknownTools: 1, calls: 1 });
    batch.reported = undefined;
    const next: ToolBatchEvent = {
      type: 'batch.begin',
      step: 4,
      calls: [{ id: 'c2', name: 'probe', input: {} }],
    };
    expect(batch.send(next)).toEqual(['log tool.call c2', 'send check check']);
    expect(batch.snapshot.context).toMatchObject({ step: 4, unknownTools: 0 });
    expect(phases(batch.snapshot)).toEqual(['c2:pending']);
    batch.send({ type: 'batch.checked', checks: [run('c2')] });
    batch.send(ok('c2'));
    expect(batch.reported).toEqual({ results: 1, unknownTools: 0, calls: 1 });
  });

  it('logs every call in model order and asks for the check', () => {
    const batch = start(['c1', 'c2']);
    expect(batch.snapshot.value).toBe('checking');
    expect(batch.out).toEqual(['log tool.call c1', 'log tool.call c2', 'send check check']);
  });

  it('begins safe calls side by side and holds a barrier until they settle', () => {
    const batch = start(['c1', 'c2', 'c3', 'c4']);
    batch.send({
      type: 'batch.checked',
      checks: [run('c1'), run('c2'), run('c3', false), run('c4')],
    });
    expect(batch.snapshot.value).toBe('running');
    expect(batch.out).toEqual([
      'log tool.started c1',
      'spawn call:c1',
      'log tool.started c2',
      'spawn call:c2',
    ]);
    batch.send(ok('c1'));
    expect(batch.out).toEqual(['stop call:c1', 'log tool.result c1 ok']);
    batch.send(ok('c2'));
    expect(batch.out).toEqual([
      'stop call:c2',
      'log tool.result c2 ok',
      'log tool.started c3',
      'spawn call:c3',
    ]);
    batch.send(ok('c3'));
    expect(batch.out).toEqual([
      'stop call:c3',
      'log tool.result c3 ok',
      'log tool.started c4',
      'spawn call:c4',
    ]);
    batch.send(ok('c4'));
    expect(batch.done).toBe(true);
    expect(batch.reported).toEqual({ results: 4, unknownTools: 0, calls: 4 });
  });

  it('commits out-of-order completions in model order', () => {
    const batch = start(['c1', 'c2', 'c3']);
    batch.send({ type: 'batch.checked', checks: [run('c1'), run('c2'), run('c3')] });
    batch.send(ok('c3'));
    expect(batch.out).toEqual(['stop call:c3']);
    batch.send(ok('c1'));
    expect(batch.out).toEqual(['stop call:c1', 'log tool.result c1 ok']);
    batch.send(ok('c2'));
    expect(batch.out).toEqual(['stop call:c2', 'log tool.result c2 ok', 'log tool.result c3 ok']);
    expect(batch.done).toBe(true);
  });

  it('caps parallel calls at maxParallel and begins the next as one settles', () => {
    const batch = start(['c1', 'c2', 'c3', 'c4', 'c5'], 2);
    batch.send({
      type: 'batch.checked',
      checks: ['c1', 'c2', 'c3', 'c4', 'c5'].map((id) => run(id)),
    });
    expect(phases(batch.snapshot)).toEqual([
      'c1:running',
      'c2:running',
      'c3:pending',
      'c4:pending',
      'c5:pending',
    ]);
    batch.send(ok('c2'));
    expect(batch.out).toEqual(['stop call:c2', 'log tool.started c3', 'spawn call:c3']);
    expect(phases(batch.snapshot)).toEqual([
      'c1:running',
      'c2:settled',
      'c3:running',
      'c4:pending',
      'c5:pending',
    ]);
  });

  it('settles rejected calls at once, logs permission decisions and counts unknown tools', () => {
    const batch = start(['c1', 'c2', 'c3']);
    const allowed: CallCheck = { ...run('c1'), decision: { outcome: 'allow', by: 'mode', reason: 'bypass' } };
    const denied = reject('c3', {
      outcome: 'denied',
      decision: { outcome: 'deny', by: 'rule', reason: 'no writes' },
    });
    batch.send({
      type: 'batch.checked',
      checks: [allowed, reject('c2', { unknownTool: true }), denied],
    });
    expect(batch.out).toEqual([
      'log approval.decided c1 allow',
      'log approval.decided c3 deny',
      'log tool.started c1',
      'spawn call:c1',
    ]);
    expect(batch.snapshot.context.unknownTools).toBe(1);
    batch.send(ok('c1'));
    expect(batch.out).toEqual([
      'stop call:c1',
      'log tool.result c1 ok',
      'log tool.result c2 error',
      'log tool.result c3 denied',
    ]);
    expect(batch.reported).toEqual({ results: 3, unknownTools: 1, calls: 3 });
  });

  it('is done at once when every call is rejected', () => {
    const batch = start(['c1', 'c2']);
    batch.send({ type: 'batch.checked', checks: [reject('c1'), reject('c2')] });
    expect(batch.out).toEqual(['log tool.result c1 error', 'log tool.result c2 error']);
    expect(batch.done).toBe(true);
    expect(batch.snapshot.context.calls.map((call) => call.content)).toEqual(['bad c1', 'bad c2']);
  });

  it('gives a call the check forgot an internal error result', () => {
    const batch = start(['c1', 'c2']);
    batch.send({ type: 'batch.checked', checks: [reject('c1')] });
    expect(batch.done).toBe(true);
    expect(batch.snapshot.context.calls[1]).toMatchObject({
      outcome: 'error',
      content: 'internal: the call was not checked',
    });
  });

  it('asks for approval, then runs an approved call alone', () => {
    const batch = start(['c1', 'c2', 'c3']);
    batch.send({ type: 'batch.checked', checks: [run('c1'), ask('c2'), run('c3')] });
    expect(batch.out).toEqual(['log tool.started c1', 'spawn call:c1']);
    batch.send({ type: 'tool.approve', callId: 'c2' });
    expect(batch.out).toEqual([]);
    batch.send(ok('c1'));
    expect(batch.out).toEqual([
      'stop call:c1',
      'log tool.result c1 ok',
      'log approval.asked c2',
      'spawn approval:c2',
    ]);
    batch.send({ type: 'tool.approve', callId: 'c2', remember: 'session' });
    expect(batch.out).toEqual([
      'stop approval:c2',
      'log approval.decided c2 allow_session',
      'log tool.started c2',
      'spawn call:c2',
    ]);
    expect(phases(batch.snapshot)).toEqual(['c1:settled+', 'c2:running', 'c3:pending']);
    batch.send(ok('c2'));
    expect(batch.out).toEqual([
      'stop call:c2',
      'log tool.result c2 ok',
      'log tool.started c3',
      'spawn call:c3',
    ]);
  });

  it('turns a denial into a denied result the model reads', () => {
    const batch = start(['c1']);
    batch.send({ type: 'batch.checked', checks: [ask('c1')] });
    batch.send({ type: 'tool.deny', callId: 'c1', reason: 'too risky' });
    expect(batch.out).toEqual([
      'stop approval:c1',
      'log approval.decided c1 deny',
      'log tool.result c1 denied',
    ]);
    expect(batch.snapshot.context.calls[0]?.content).toBe('Permission denied: too risky');
    expect(batch.done).toBe(true);
  });

  it('cancel while checking gives every call aborted_before_start, in model order', () => {
    const batch = start(['c1', 'c2', 'c3']);
    batch.send({ type: 'batch.cancel' });
    expect(batch.out).toEqual([
      'log tool.result c1 aborted_before_start',
      'log tool.result c2 aborted_before_start',
      'log tool.result c3 aborted_before_start',
    ]);
    expect(batch.done).toBe(true);
    expect(batch.reported).toEqual({ results: 3, unknownTools: 0, calls: 3 });
  });

  it('cancel mid-batch aborts running calls, ends approvals, waits, and commits every result in order', () => {
    const batch = start(['c1', 'c2', 'c3', 'c4', 'c5']);
    batch.send({
      type: 'batch.checked',
      checks: [run('c1'), run('c2'), run('c3'), ask('c4'), run('c5')],
    });
    batch.send(ok('c2'));
    batch.send({ type: 'batch.cancel' });
    expect(batch.snapshot.value).toBe('cancelling');
    expect(batch.out).toEqual(['send call:c1 tool.abort', 'send call:c3 tool.abort']);
    expect(phases(batch.snapshot)).toEqual([
      'c1:running',
      'c2:settled',
      'c3:running',
      'c4:settled',
      'c5:settled',
    ]);
    // Approvals and new results are no longer accepted; only the running calls report back.
    expect(batch.send({ type: 'tool.approve', callId: 'c4' })).toEqual([]);
    batch.send({
      type: 'tool.settled',
      callId: 'c3',
      outcome: 'aborted',
      content: 'x',
    });
    expect(batch.out).toEqual(['stop call:c3']);
    batch.send({
      type: 'tool.settled',
      callId: 'c1',
      outcome: 'aborted',
      content: 'x',
    });
    expect(batch.out).toEqual([
      'stop call:c1',
      'log tool.result c1 aborted',
      'log tool.result c2 ok',
      'log tool.result c3 aborted',
      'log tool.result c4 aborted_before_start',
      'log tool.result c5 aborted_before_start',
    ]);
    expect(batch.done).toBe(true);
  });

  it('cancel while a call waits for approval settles it as aborted', () => {
    const batch = start(['c1', 'c2']);
    batch.send({ type: 'batch.checked', checks: [ask('c1'), run('c2')] });
    batch.send({ type: 'batch.cancel' });
    expect(batch.out).toEqual([
      'stop approval:c1',
      'log tool.result c1 aborted',
      'log tool.result c2 aborted_before_start',
    ]);
    expect(batch.done).toBe(true);
  });

  it('ignores a second result for a call that already settled', () => {
    const batch = start(['c1', 'c2']);
    batch.send({ type: 'batch.checked', checks: [run('c1'), run('c2')] });
    batch.send(ok('c1'));
    batch.send({
      type: 'tool.settled',
      callId: 'c1',
      outcome: 'error',
      content: 'late',
    });
    expect(batch.out).toEqual(['stop (ended)']);
    expect(batch.snapshot.context.calls[0]).toMatchObject({ outcome: 'ok', committed: true });
  });
});

function call(callId: string, phase: BatchCall['phase'], extra: Partial<BatchCall> = {}): BatchCall {
  return { callId, name: 't', input: {}, safe: true, verdict: 'run', phase, committed: false, ...extra };
}
const barrier = { safe: false };

describe('callsToBegin', () => {
  it.each<[string, BatchCall[], number, number[]]>([
    [
      'all safe, no cap reached',
      [call('a', 'pending'), call('b', 'pending'), call('c', 'pending')],
      10,
      [0, 1, 2],
    ],
    [
      'safe calls up to the cap',
      [call('a', 'pending'), call('b', 'pending'), call('c', 'pending')],
      2,
      [0, 1],
    ],
    [
      'cap counts calls already running',
      [call('a', 'running'), call('b', 'pending'), call('c', 'pending')],
      2,
      [1],
    ],
    [
      'cap counts calls awaiting approval',
      [call('a', 'awaitingApproval', barrier), call('b', 'pending')],
      1,
      [],
    ],
    ['a leading barrier begins alone', [call('a', 'pending', barrier), call('b', 'pending')], 10, [0]],
    ['a barrier waits for earlier calls', [call('a', 'running'), call('b', 'pending', barrier)], 10, []],
    [
      'safe calls stop at a barrier',
      [call('a', 'pending'), call('b', 'pending', barrier), call('c', 'pending')],
      10,
      [0],
    ],
    ['nothing passes a running barrier', [call('a', 'running', barrier), call('b', 'pending')], 10, []],
    [
      'a barrier begins once earlier calls settled',
      [call('a', 'settled'), call('b', 'pending', barrier)],
      10,
      [1],
    ],
    [
      'calls after a settled barrier run side by side',
      [call('a', 'settled', barrier), call('b', 'pending'), call('c', 'pending')],
      10,
      [1, 2],
    ],
    [
      'a call to ask is a barrier',
      [call('a', 'pending'), call('b', 'pending', { verdict: 'ask', safe: false })],
      10,
      [0],
    ],
    [
      'a lone call to ask begins',
      [call('a', 'settled'), call('b', 'pending', { verdict: 'ask', safe: false })],
      10,
      [1],
    ],
    [
      'rejected (settled) calls are skipped',
      [call('a', 'settled', { verdict: 'reject', safe: false }), call('b', 'pending')],
      10,
      [1],
    ],
    ['nothing left', [call('a', 'settled'), call('b', 'running')], 10, []],
    [
      'a cap of one runs safe calls one by one',
      [call('a', 'settled'), call('b', 'pending'), call('c', 'pending')],
      1,
      [1],
    ],
  ])('%s', (_name, calls, maxParallel, expected) => {
    expect(callsToBegin(calls, maxParallel)).toEqual(expected);
  });
});

describe('callsToCommit', () => {
  const settled = (id: string, committed = false) => call(id, 'settled', { committed, outcome: 'ok' });
  it.each<[string, BatchCall[], number[]]>([
    ['nothing settled', [call('a', 'running'), call('b', 'pending')], []],
    ['the first settled call', [settled('a'), call('b', 'running')], [0]],
    [
      'a settled run after the last commit',
      [settled('a', true), settled('b'), settled('c'), call('d', 'running')],
      [1, 2],
    ],
    ['a later call waits for an earlier one', [call('a', 'running'), settled('b'), settled('c')], []],
    ['a gap stops the run', [settled('a', true), settled('b'), call('c', 'running'), settled('d')], [1]],
    ['everything committed', [settled('a', true), settled('b', true)], []],
  ])('%s', (_name, calls, expected) => {
    expect(callsToCommit(calls)).toEqual(expected);
  });

  it('allCommitted is true only when every call is committed', () => {
    expect(allCommitted([settled('a', true), settled('b', true)])).toBe(true);
    expect(allCommitted([settled('a', true), settled('b')])).toBe(false);
    expect(allCommitted([])).toBe(true);
  });
});
