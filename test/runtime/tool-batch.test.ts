// The tool batch through the public API: cancel at every state, model-order commits, the parallel cap
// and timeouts. Calls the model got wrong are in bad-calls.test.ts.
import { describe, expect, it } from 'vitest';
import {
  createHarness,
  disposeAndCheck,
  expectResultsInModelOrder,
  logTuples,
  startRun,
} from '../graph/support/driver.ts';
import { HoldingTool } from '../graph/support/holding-tool.ts';
import { GateTool, settle } from '../support/controllable.ts';
import { closing, fromTurnStart, opening, probeCall } from './batch-log.ts';

describe('cancel at every state of a tool batch', () => {
  it('some calls done, some running, some not started', async () => {
    const probe = new GateTool('probe', { safe: true });
    const write = new GateTool('write', { safe: false });
    const harness = await createHarness({ tools: [probe, write] });
    await startRun(harness);
    (await harness.model.request(0)).answer('', [
      probeCall('c1'),
      probeCall('c2'),
      probeCall('c3'),
      { id: 'c4', name: 'write', input: { value: '4' } },
      probeCall('c5'),
    ]);
    await settle();
    probe.finish('c1');
    await settle();
    harness.agent.cancel();
    expect((await harness.run!).reason).toBe('canceled');
    expect(probe.aborted).toEqual(['c2', 'c3']);
    expect(write.started).toEqual([]);
    expect(fromTurnStart(harness)).toEqual([
      ...opening,
      ['tool.call', 'c1'],
      ['tool.call', 'c2'],
      ['tool.call', 'c3'],
      ['tool.call', 'c4'],
      ['tool.call', 'c5'],
      ['approval.decided', 'c1', 'allow'],
      ['approval.decided', 'c2', 'allow'],
      ['approval.decided', 'c3', 'allow'],
      ['approval.decided', 'c4', 'allow'],
      ['approval.decided', 'c5', 'allow'],
      ['tool.started', 'c1'],
      ['tool.started', 'c2'],
      ['tool.started', 'c3'],
      ['tool.result', 'c1', 'ok'],
      // The cancel, logged with who asked (a replay gives it again here), then what it did.
      ['cancel.requested'],
      ['tool.result', 'c2', 'aborted'],
      ['tool.result', 'c3', 'aborted'],
      ['tool.result', 'c4', 'aborted_before_start'],
      ['tool.result', 'c5', 'aborted_before_start'],
      ...closing,
    ]);
    await disposeAndCheck(harness);
  });

  it('a running call that ignores its abort is awaited before the batch ends', async () => {
    const held = new HoldingTool('probe');
    const harness = await createHarness({ tools: [held] });
    await startRun(harness);
    (await harness.model.request(0)).answer('', [probeCall('c1'), probeCall('c2')]);
    await settle();
    held.finish('c2');
    await settle();
    harness.agent.cancel();
    await settle();
    // Still waiting: c1 was told to abort but has not returned, so nothing after it is committed.
    expect(held.aborted).toEqual(['c1']);
    expect(harness.agent.state).toBe('ready.running');
    expect(harness.agent.log().filter((event) => event.type === 'tool.result')).toEqual([]);
    held.finish('c1', 'finished anyway');
    expect((await harness.run!).reason).toBe('canceled');
    expect(fromTurnStart(harness).filter(([type]) => type === 'tool.result')).toEqual([
      ['tool.result', 'c1', 'aborted'],
      ['tool.result', 'c2', 'ok'],
    ]);
    await disposeAndCheck(harness);
  });

  it('a call waiting for approval is settled as aborted', async () => {
    const probe = new GateTool('probe', { safe: true });
    const edit = new GateTool('edit', { access: 'write' });
    const harness = await createHarness({
      tools: [probe, edit],
      permissionMode: 'default',
      approve: 'manual',
    });
    await startRun(harness);
    (await harness.model.request(0)).answer('', [
      probeCall('c1'),
      { id: 'c2', name: 'edit', input: { value: '2' } },
      probeCall('c3'),
    ]);
    await settle();
    probe.finish('c1');
    await settle();
    harness.agent.cancel();
    expect((await harness.run!).reason).toBe('canceled');
    expect(edit.started).toEqual([]);
    expect(fromTurnStart(harness)).toEqual([
      ...opening,
      ['tool.call', 'c1'],
      ['tool.call', 'c2'],
      ['tool.call', 'c3'],
      ['approval.decided', 'c1', 'allow'],
      ['approval.decided', 'c3', 'allow'],
      ['tool.started', 'c1'],
      ['tool.result', 'c1', 'ok'],
      ['approval.asked', 'c2'],
      ['cancel.requested'],
      ['tool.result', 'c2', 'aborted'],
      ['tool.result', 'c3', 'aborted_before_start'],
      ...closing,
    ]);
    await disposeAndCheck(harness);
  });

  it('an approved call runs; a denied one is a denied result and the batch goes on', async () => {
    const edit = new GateTool('edit', { access: 'write' });
    const harness = await createHarness({ tools: [edit], permissionMode: 'default', approve: 'manual' });
    await startRun(harness);
    (await harness.model.request(0)).answer('', [
      { id: 'c1', name: 'edit', input: { value: '1' } },
      { id: 'c2', name: 'edit', input: { value: '2' } },
    ]);
    await settle();
    harness.agent.approve('c1');
    await settle();
    edit.finish('c1');
    await settle();
    harness.agent.deny('c2', 'not that file');
    await settle();
    (await harness.model.request(1)).answer('OK.');
    expect((await harness.run!).reason).toBe('completed');
    expect(fromTurnStart(harness).slice(5, -4)).toEqual([
      ['tool.call', 'c1'],
      ['tool.call', 'c2'],
      ['approval.asked', 'c1'],
      ['approval.decided', 'c1', 'allow'],
      ['tool.started', 'c1'],
      ['tool.result', 'c1', 'ok'],
      ['approval.asked', 'c2'],
      ['approval.decided', 'c2', 'deny'],
      ['tool.result', 'c2', 'denied'],
      ['step.end'],
    ]);
    await disposeAndCheck(harness);
  });
});

describe('model order and parallelism', () => {
  it('commits out-of-order completions in model order (finish c3, c1, c2 → c1, c2, c3)', async () => {
    const probe = new GateTool('probe', { safe: true });
    const harness = await createHarness({ tools: [probe] });
    await startRun(harness);
    (await harness.model.request(0)).answer('', [probeCall('c1'), probeCall('c2'), probeCall('c3')]);
    await settle();
    expect(probe.started).toEqual(['c1', 'c2', 'c3']);
    const results = () => logTuples(harness.agent.log()).filter(([type]) => type === 'tool.result');
    probe.finish('c3');
    await settle();
    expect(results()).toEqual([]);
    probe.finish('c1');
    await settle();
    expect(results()).toEqual([['tool.result', 'c1', 'ok']]);
    probe.finish('c2');
    await settle();
    expect(results()).toEqual([
      ['tool.result', 'c1', 'ok'],
      ['tool.result', 'c2', 'ok'],
      ['tool.result', 'c3', 'ok'],
    ]);
    // Each result carries its own call's output, whatever order they finished in.
    const contents = harness.agent
      .log()
      .filter((event) => event.type === 'tool.result')
      .map((event) => event.data.content);
    expect(contents).toEqual(['done c1', 'done c2', 'done c3']);
    (await harness.model.request(1)).answer('Done.');
    expect((await harness.run!).reason).toBe('completed');
    await disposeAndCheck(harness);
  });

  it('never runs more than limits.maxParallelTools safe calls at once', async () => {
    const held = new HoldingTool('probe');
    const harness = await createHarness({ tools: [held], limits: { maxParallelTools: 2 } });
    await startRun(harness);
    (await harness.model.request(0)).answer(
      '',
      ['c1', 'c2', 'c3', 'c4', 'c5'].map((id) => probeCall(id)),
    );
    await settle();
    expect(held.running).toEqual(['c1', 'c2']);
    for (const [finish, running] of [
      ['c2', ['c1', 'c3']],
      ['c1', ['c3', 'c4']],
      ['c4', ['c3', 'c5']],
      ['c3', ['c5']],
      ['c5', []],
    ] as const) {
      held.finish(finish);
      await settle();
      expect(held.running).toEqual(running);
      expectResultsInModelOrder(harness.agent.log());
    }
    expect(held.peak).toBe(2);
    expect(held.started).toEqual(['c1', 'c2', 'c3', 'c4', 'c5']);
    (await harness.model.request(1)).answer('Done.');
    expect((await harness.run!).reason).toBe('completed');
    await disposeAndCheck(harness);
  });
});

describe('timeouts', () => {
  it('a call that outlives its timeout on the injected clock settles as timeout, in model order', async () => {
    const probe = new GateTool('probe', { safe: true });
    const harness = await createHarness({ tools: [probe] });
    await startRun(harness);
    (await harness.model.request(0)).answer('', [probeCall('c1'), probeCall('c2')]);
    await settle();
    probe.finish('c2');
    await settle();
    // The default tool timeout is 10 minutes of clock time; nothing real waits.
    harness.clock.advance(600_000);
    await settle();
    expect(probe.aborted).toEqual(['c1']);
    const results = harness.agent.log().filter((event) => event.type === 'tool.result');
    expect(results.map((event) => [event.data.callId, event.data.outcome, event.data.content])).toEqual([
      ['c1', 'timeout', 'The tool did not finish within 600000 ms and was stopped.'],
      ['c2', 'ok', 'done c2'],
    ]);
    (await harness.model.request(1)).answer('Noted.');
    expect((await harness.run!).reason).toBe('completed');
    await disposeAndCheck(harness);
  });
});
