// Calls the model got wrong, through the public API: an unknown tool and invalid arguments become error
// results the model reads, and a run of steps with only unknown tools ends the turn.
import { describe, expect, it } from 'vitest';
import { createHarness, disposeAndCheck, startRun } from '../graph/support/driver.ts';
import { GateTool, settle } from '../support/controllable.ts';
import { closing, fromTurnStart, opening, probeCall } from './batch-log.ts';

describe('calls the model got wrong', () => {
  it('an unknown tool and invalid arguments become error results with the message the model reads', async () => {
    const probe = new GateTool('probe', { safe: true });
    const harness = await createHarness({ tools: [probe] });
    await startRun(harness);
    (await harness.model.request(0)).answer('', [
      { id: 'c1', name: 'teleport', input: { to: 'mars' } },
      probeCall('c2', 42 as unknown as string),
      { id: 'c3', name: 'probe', input: '{"value": "unterminated' },
    ]);
    await settle();
    const next = await harness.model.request(1);
    expect(probe.started).toEqual([]);
    const toolMessages = next.request.messages.filter((message) => message.role === 'tool');
    expect(toolMessages).toEqual([
      {
        role: 'tool',
        callId: 'c1',
        name: 'teleport',
        content: 'Unknown tool "teleport". Available tools: probe.',
        isError: true,
      },
      {
        role: 'tool',
        callId: 'c2',
        name: 'probe',
        content:
          'Invalid arguments for probe:\n✖ Invalid input: expected string, received number\n  → at value',
        isError: true,
      },
      {
        role: 'tool',
        callId: 'c3',
        name: 'probe',
        content: 'Invalid arguments for probe: not a JSON object ("{\\"value\\": \\"unterminated").',
        isError: true,
      },
    ]);
    next.answer('Sorry.');
    expect((await harness.run!).reason).toBe('completed');
    await disposeAndCheck(harness);
  });

  it('ends the turn with unknown_tool_limit after limits.maxUnknownToolCalls steps of only unknown tools', async () => {
    const probe = new GateTool('probe', { safe: true });
    const harness = await createHarness({ tools: [probe], limits: { maxUnknownToolCalls: 2 } });
    await startRun(harness);
    (await harness.model.request(0)).answer('', [{ id: 'c1', name: 'nope', input: {} }]);
    await settle();
    (await harness.model.request(1)).answer('', [{ id: 'c2', name: 'nada', input: {} }]);
    const result = await harness.run!;
    expect(result.reason).toBe('unknown_tool_limit');
    expect(harness.model.requests).toHaveLength(2);
    expect(fromTurnStart(harness)).toEqual([
      ...opening,
      ['tool.call', 'c1'],
      ['tool.result', 'c1', 'error'],
      ['step.end'],
      ['step.start'],
      ['assistant.message'],
      ['tool.call', 'c2'],
      ['tool.result', 'c2', 'error'],
      ...closing,
    ]);
    await disposeAndCheck(harness);
  });

  it('a known call between unknown ones resets the count', async () => {
    const probe = new GateTool('probe', { safe: true });
    const harness = await createHarness({ tools: [probe], limits: { maxUnknownToolCalls: 2 } });
    await startRun(harness);
    (await harness.model.request(0)).answer('', [{ id: 'c1', name: 'nope', input: {} }]);
    await settle();
    (await harness.model.request(1)).answer('', [probeCall('c2')]);
    await settle();
    probe.finish('c2');
    await settle();
    (await harness.model.request(2)).answer('', [{ id: 'c3', name: 'nope', input: {} }]);
    await settle();
    (await harness.model.request(3)).answer('Giving up on that.');
    expect((await harness.run!).reason).toBe('completed');
    await disposeAndCheck(harness);
  });
});
