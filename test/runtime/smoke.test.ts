import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgentSystem, defineTool } from '../../src/index.ts';
import { scripted } from '../../src/testing.ts';

let counter = 0;
const ids = () => `id${++counter}`;
let time = 1000;
const clock = {
  now: () => time++,
  setTimer: (cb: () => void, ms: number) => {
    const h = setTimeout(cb, ms);
    return () => clearTimeout(h);
  },
};

const echo = defineTool({
  name: 'echo',
  description: 'Echo text',
  access: 'none',
  concurrencySafe: true,
  input: z.object({ text: z.string() }),
  run: async ({ text }) => `echo: ${text}`,
});

describe('smoke', () => {
  it('runs a two-step turn', async () => {
    const model = scripted([
      {
        text: 'Let me echo.',
        toolCalls: [
          { name: 'echo', input: { text: 'a' } },
          { name: 'echo', input: { text: 'b' } },
        ],
      },
      { text: 'Done.' },
    ]);
    const system = createAgentSystem({
      model,
      tools: [echo],
      ids,
      clock,
      projectInstructions: false,
      permissionMode: 'bypass',
    });
    const agent = await system.createAgent({ id: 'a1' });
    const result = await agent.run('hello');
    expect(result.reason).toBe('completed');
    expect(result.text).toBe('Done.');
    expect(agent.log().map((e) => e.type)).toMatchInlineSnapshot(`
      [
        "session.start",
        "inbox.queued",
        "turn.start",
        "inbox.claimed",
        "user.message",
        "step.start",
        "assistant.message",
        "tool.call",
        "tool.call",
        "approval.decided",
        "approval.decided",
        "tool.started",
        "tool.started",
        "tool.result",
        "tool.result",
        "step.end",
        "step.start",
        "assistant.message",
        "step.end",
        "turn.end",
      ]
    `);
    await agent.dispose();
    expect(agent.log().at(-1)?.type).toBe('session.end');
    await system.dispose();
  });
});

describe("the README's streaming example", () => {
  it('streams the text with agent.stream, and its result says what happened', async () => {
    const system = createAgentSystem({
      model: scripted(
        [
          { text: 'Running them.', toolCalls: [{ id: 'c1', name: 'echo', input: { text: 'npm test' } }] },
          { text: 'Fixed the off-by-one in sum().' },
        ],
        { chunkSize: 6 },
      ),
      tools: [echo],
      permissionMode: 'accept-edits',
      approve: async ({ tool }) => (tool === 'bash' ? 'allow' : 'deny'),
      projectInstructions: false,
    });
    const agent = await system.createAgent({ instructions: 'You fix failing tests.' });
    const stream = agent.stream('Fix the failing test');
    let streamed = '';
    for await (const text of stream.text) streamed += text;
    const result = await stream.result;
    expect(streamed).toBe('Running them.\n\nFixed the off-by-one in sum().');
    expect(result).toEqual({
      reason: 'completed',
      text: 'Fixed the off-by-one in sum().',
      usage: { inputTokens: 20, outputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0 },
      turn: 1,
      denied: [],
    });
    await system.dispose();
  });
});
