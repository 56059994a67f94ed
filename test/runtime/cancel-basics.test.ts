import { describe, expect, it } from 'vitest';
import { createAgentSystem } from '../../src/index.ts';
import { GateProvider, GateTool, settle } from '../support/controllable.ts';
import { fieldsOf } from '../support/log-fields.ts';

function counterIds() {
  let n = 0;
  return () => `id${++n}`;
}

describe('cancel basics', () => {
  it('keeps streamed text as an interrupted message when cancelled mid-stream', async () => {
    const model = new GateProvider();
    const system = createAgentSystem({
      model,
      ids: counterIds(),
      projectInstructions: false,
      permissionMode: 'bypass',
    });
    const agent = await system.createAgent({ id: 'a' });
    const run = agent.run('go');
    const request = await model.request(0);
    request.delta('Half a thought');
    await settle();
    agent.cancel();
    const result = await run;
    expect(result.reason).toBe('canceled');
    const assistant = agent.log().filter((e) => e.type === 'assistant.message');
    expect(assistant.map((e) => e.data)).toEqual([
      {
        text: 'Half a thought',
        toolCalls: [],
        usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
        stopReason: 'interrupted',
        interrupted: true,
      },
    ]);
    expect(request.aborted).toBe(true);
    await system.dispose();
  });

  it('gives every call a result when cancelled mid-batch: done, running and never started', async () => {
    const model = new GateProvider();
    const safe = new GateTool('probe', { safe: true });
    const barrier = new GateTool('write', { safe: false });
    const system = createAgentSystem({
      model,
      tools: [safe.tool, barrier.tool],
      ids: counterIds(),
      projectInstructions: false,
      permissionMode: 'bypass',
    });
    const agent = await system.createAgent({ id: 'a' });
    const run = agent.run('go');
    (await model.request(0)).answer('', [
      { id: 'c1', name: 'probe', input: { value: '1' } },
      { id: 'c2', name: 'probe', input: { value: '2' } },
      { id: 'c3', name: 'write', input: { value: '3' } },
    ]);
    await settle();
    expect(safe.started).toEqual(['c1', 'c2']);
    safe.finish('c2');
    await settle();
    agent.cancel();
    const result = await run;
    expect(result.reason).toBe('canceled');
    const results = fieldsOf(agent.log(), 'tool.result', 'callId', 'outcome');
    expect(results).toEqual([
      ['c1', 'aborted'],
      ['c2', 'ok'],
      ['c3', 'aborted_before_start'],
    ]);
    expect(safe.aborted).toEqual(['c1']);
    await system.dispose();
  });
});
