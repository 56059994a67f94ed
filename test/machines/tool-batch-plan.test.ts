// The batch's planning rules on their own: which calls may begin now and which results are next in
// model order. The chart (tool-batch.test.ts) applies them; here they are checked case by case.
import { describe, expect, it } from 'vitest';
import {
  allCommitted,
  type BatchCall,
  callsToBegin,
  callsToCommit,
} from '../../src/machines/tool-batch-plan.ts';

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
