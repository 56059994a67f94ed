// `agent.stream(prompt)`: one call that starts a turn and yields what happens in it, in order, ending with
// the turn's result; `.text` for the text alone, the texts of two steps apart. It never hangs: a turn that
// cannot start, or an agent disposed during it, rejects the iteration. Real runtime and tools, the
// scripted model; calls made as a plain JavaScript caller would make them.
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type Agent,
  AgentStateError,
  type AgentStreamEvent,
  ConfigError,
  createAgentSystem,
  defineTool,
} from '../../src/index.ts';
import { type ScriptEntry, scripted } from '../../src/testing.ts';

const systems: ReturnType<typeof createAgentSystem>[] = [];
afterEach(async () => {
  await Promise.all(systems.splice(0).map((system) => system.dispose()));
});

const echo = defineTool({
  name: 'echo',
  description: 'Repeat the text.',
  access: 'exec',
  input: z.object({ text: z.string() }),
  run: async ({ text }) => `echo: ${text}`,
});

async function agentWith(script: ScriptEntry[], approve: 'manual' | 'deny' = 'deny'): Promise<Agent> {
  const system = createAgentSystem({
    model: scripted(script, { chunkSize: 4 }),
    tools: [echo],
    approve,
    permissionMode: approve === 'deny' ? 'bypass' : 'default',
    projectInstructions: false,
    retry: { baseDelayMs: 0, maxDelayMs: 0 },
  });
  systems.push(system);
  return system.createAgent();
}

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterable) items.push(item);
  return items;
}

/** What the iteration ended with: its events, then `threw <class>: <message>` when it rejected. */
async function outcome(iterable: AsyncIterable<AgentStreamEvent>): Promise<string[]> {
  const seen: string[] = [];
  try {
    for await (const event of iterable) seen.push(event.type);
  } catch (error) {
    seen.push(`threw ${(error as Error).name}: ${(error as Error).message}`);
  }
  return seen;
}

const usage = { inputTokens: 20, outputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0 };
const lookThenAnswer: ScriptEntry[] = [
  { text: 'Looking.', toolCalls: [{ id: 'c1', name: 'echo', input: { text: 'hi' } }] },
  { text: 'Done here.' },
];

describe('agent.stream', () => {
  it('yields the turn in order: steps, text, tool calls and results, then its result', async () => {
    const agent = await agentWith(lookThenAnswer);
    const events = await collect(agent.stream('Go'));
    const at = (step: number) => ({ turn: 1, step });
    expect(events).toEqual([
      { type: 'step.start', ...at(1) },
      { type: 'text.delta', ...at(1), text: 'Look' },
      { type: 'text.delta', ...at(1), text: 'ing.' },
      { type: 'tool.call', ...at(1), callId: 'c1', name: 'echo', input: { text: 'hi' } },
      { type: 'tool.result', ...at(1), callId: 'c1', name: 'echo', outcome: 'ok', content: 'echo: hi' },
      { type: 'step.end', ...at(1) },
      { type: 'step.start', ...at(2) },
      { type: 'text.delta', ...at(2), text: 'Done' },
      { type: 'text.delta', ...at(2), text: ' her' },
      { type: 'text.delta', ...at(2), text: 'e.' },
      { type: 'step.end', ...at(2) },
      { type: 'turn.end', result: { reason: 'completed', text: 'Done here.', usage, turn: 1, denied: [] } },
    ]);
  });

  it('.text puts a blank line between the texts of two steps; .result is the run result', async () => {
    const agent = await agentWith(lookThenAnswer);
    const stream = agent.stream('Go');
    expect((await collect(stream.text)).join('')).toBe('Looking.\n\nDone here.');
    expect(await stream.result).toEqual({
      reason: 'completed',
      text: 'Done here.',
      usage,
      turn: 1,
      denied: [],
    });
  });

  it('follows its own turn only, when the agent is busy with another', async () => {
    const agent = await agentWith([{ text: 'First.' }, { text: 'Second.' }]);
    const first = agent.run('one');
    const texts = await collect(agent.stream('two').text);
    expect((await first).text).toBe('First.');
    expect(texts.join('')).toBe('Second.');
  });

  it('ends with a failed turn, telling the failed requests on the way', async () => {
    const agent = await agentWith([
      { text: 'Par', error: { kind: 'overloaded', retryAfterMs: 0 } },
      { error: { kind: 'auth' } },
    ]);
    const events = await collect(agent.stream('Go'));
    expect(events.map((event) => event.type)).toEqual([
      'step.start',
      'text.delta',
      'model.error',
      'model.error',
      'step.end',
      'turn.end',
    ]);
    expect(events.filter((event) => event.type === 'model.error')).toEqual([
      {
        type: 'model.error',
        turn: 1,
        step: 1,
        error: { kind: 'overloaded', message: 'scripted overloaded', retryable: true, retryAfterMs: 0 },
        retryInMs: 0,
      },
      {
        type: 'model.error',
        turn: 1,
        step: 1,
        error: { kind: 'auth', message: 'scripted auth', retryable: false },
      },
    ]);
    const end = events.at(-1) as Extract<AgentStreamEvent, { type: 'turn.end' }>;
    expect(end.result.error).toEqual({ kind: 'auth', message: 'scripted auth', retryable: false });
  });

  it('tells a call that waits for approval, and goes on once it is answered', async () => {
    const agent = await agentWith(lookThenAnswer, 'manual');
    const seen: string[] = [];
    for await (const event of agent.stream('Go')) {
      seen.push(event.type === 'tool.result' ? `tool.result ${event.outcome}` : event.type);
      if (event.type === 'approval.asked') agent.deny(event.callId, 'not today');
    }
    expect(seen).toEqual([
      'step.start',
      'text.delta',
      'text.delta',
      'tool.call',
      'approval.asked',
      'tool.result denied',
      'step.end',
      'step.start',
      'text.delta',
      'text.delta',
      'text.delta',
      'step.end',
      'turn.end',
    ]);
  });

  it('rejects the iteration and .result when the turn cannot start', async () => {
    const agent = await agentWith([]);
    const bad = agent.stream(5 as never);
    expect(await outcome(bad)).toEqual([
      'threw ConfigError: agent.stream: message must be a non-empty string, got 5',
    ]);
    await expect(bad.result).rejects.toBeInstanceOf(ConfigError);
    // A stream nobody reads rejects nothing unhandled (the setup fails any test where one escapes).
    agent.stream(undefined as never);
    await agent.dispose();
    expect(await outcome(agent.stream('Go'))).toEqual([
      `threw AgentStateError: cannot stream: agent ${agent.id} is disposed`,
    ]);
  });

  it('rejects the iteration and .result when the agent is disposed during the turn', async () => {
    const agent = await agentWith([{ text: 'Hello, wor', held: true }]);
    const seen: string[] = [];
    const stream = agent.stream('Go');
    const error = await (async () => {
      try {
        for await (const event of stream) {
          seen.push(event.type);
          if (event.type === 'text.delta' && seen.length === 2) void agent.dispose();
        }
      } catch (thrown) {
        return thrown;
      }
    })();
    expect(AgentStateError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe(`agent ${agent.id} was disposed during turn 1`);
    expect(seen[0]).toBe('step.start');
    await expect(stream.result).rejects.toBe(error);
  });

  it('rejects, as run() does, when a cancel clears its queued prompt before a turn takes it', async () => {
    const agent = await agentWith([{ text: 'Busy', held: true }]);
    // Once the first turn runs, with the other two prompts queued behind it.
    agent.onLog((event) => {
      if (event.type === 'step.start') queueMicrotask(() => agent.cancel('user', { clearInbox: true }));
    });
    const first = agent.run('one');
    const queued = agent.run('two');
    const stream = agent.stream('three');
    expect((await first).reason).toBe('canceled');
    const cleared = (id: string) =>
      `threw AgentStateError: input ${id} of agent ${agent.id} was cleared by agent.cancel({ clearInbox: true }) before a turn answered it`;
    const [two, three] = agent
      .log()
      .filter((event) => event.type === 'inbox.queued')
      .slice(1)
      .map((event) => String(event.data.id));
    expect(await outcome(stream)).toEqual([cleared(three!)]);
    await expect(queued).rejects.toThrow(cleared(two!).slice('threw AgentStateError: '.length));
  });

  it('leaving the loop early stops the events, not the turn', async () => {
    const agent = await agentWith(lookThenAnswer);
    const stream = agent.stream('Go');
    for await (const event of stream) if (event.type === 'tool.call') break;
    expect((await stream.result).reason).toBe('completed');
    expect(await collect(stream)).toEqual([]);
  });

  it('cuts off a consumer more than 10,000 events behind, saying so, and the turn goes on', async () => {
    const system = createAgentSystem({
      model: scripted([{ text: 'x'.repeat(10_050) }], { chunkSize: 1 }),
      projectInstructions: false,
    });
    systems.push(system);
    const agent = await system.createAgent();
    const stream = agent.stream('Go');
    expect((await stream.result).reason).toBe('completed');
    const seen = await outcome(stream);
    expect(seen.length).toBe(10_001);
    expect(seen.at(-1)).toBe(
      'threw AgentStateError: agent.stream: the consumer fell more than 10000 events behind and was cut off; ' +
        'the turn goes on, and agent.log() has every logged event',
    );
  });
});
