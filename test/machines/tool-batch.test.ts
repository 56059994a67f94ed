// The tool-batch chart with pure transitions (no actor runs): planning, barriers, approvals, rejects,
// commit order and cancel from every state; the planning rules alone are in tool-batch-plan.test.ts.
import { describe, expect, it } from 'vitest';
import { initialTransition } from 'xstate';
import { type CallCheck, type ToolBatchEvent, toolBatchMachine } from '../../src/machines/tool-batch.ts';
import { ask, effects, ok, phases, reject, run, start } from '../support/batch-driver.ts';

describe('toolBatchMachine (pure transitions)', () => {
  it('starts idle with its check actor, which lives as long as the turn', () => {
    const [snapshot, actions] = initialTransition(toolBatchMachine, {
      agentKey: 'agent:a',
      turn: 2,
      maxParallel: 4,
    });
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
    // The question is logged, and asked only once the log holding it is durable.
    expect(batch.out).toEqual([
      'stop call:c1',
      'log tool.result c1 ok',
      'log approval.asked c2',
      'spawn flush',
    ]);
    expect(batch.snapshot.value).toEqual({ awaitingApproval: 'persisting' });
    expect(batch.send({ type: 'log.flushed' })).toEqual(['stop flush', 'spawn approval:c2']);
    expect(batch.snapshot.value).toEqual({ awaitingApproval: 'asking' });
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
    batch.send({ type: 'log.flushed' });
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
    batch.send({ type: 'log.flushed' });
    batch.send({ type: 'batch.cancel' });
    expect(batch.out).toEqual([
      'stop approval:c1',
      'log tool.result c1 aborted',
      'log tool.result c2 aborted_before_start',
    ]);
    expect(batch.done).toBe(true);
  });

  it('takes an answer that comes before the question is durable, and asks nobody then', () => {
    const batch = start(['c1']);
    batch.send({ type: 'batch.checked', checks: [ask('c1')] });
    expect(batch.out).toEqual(['log approval.asked c1', 'spawn flush']);
    expect(batch.send({ type: 'tool.approve', callId: 'c1' })).toEqual([
      'stop flush',
      'stop (ended)', // no approval actor was started: nothing to stop
      'log approval.decided c1 allow',
      'log tool.started c1',
      'spawn call:c1',
    ]);
    expect(batch.send({ type: 'log.flushed' })).toEqual([]);
    batch.send(ok('c1'));
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
