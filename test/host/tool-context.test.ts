// Host code the runtime calls around a tool call: the tool's `concurrencySafe` predicate and the `log` and
// `onProgress` callbacks a tool is handed. Whatever they answer or are given, a call stays well defined.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgentSystem, defineTool, type LiveEvent } from '../../src/index.ts';
import { scripted } from '../../src/testing.ts';

const twoCalls = [
  { id: 'c1', name: 'probe', input: { n: 1 } },
  { id: 'c2', name: 'probe', input: { n: 2 } },
];

/** Runs two calls of a tool whose predicate answers `answer`; returns how many ran at once at most. */
async function mostAtOnce(concurrencySafe: (input: { n: number }) => unknown): Promise<number> {
  let running = 0;
  let most = 0;
  const probe = defineTool({
    name: 'probe',
    description: 'Takes a moment.',
    access: 'read',
    input: z.object({ n: z.number() }),
    concurrencySafe: concurrencySafe as (input: { n: number }) => boolean,
    run: async () => {
      most = Math.max(most, ++running);
      for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
      running--;
      return 'done';
    },
  });
  const system = createAgentSystem({
    model: scripted([{ toolCalls: twoCalls }, { text: 'Both done.' }]),
    tools: [probe],
    projectInstructions: false,
  });
  const agent = await system.createAgent();
  expect((await agent.run('probe twice')).reason).toBe('completed');
  await system.dispose();
  return most;
}

describe('concurrencySafe predicates', () => {
  it('only an answer of exactly true lets calls run side by side', async () => {
    expect([
      await mostAtOnce(() => true),
      await mostAtOnce(() => 'yes'),
      await mostAtOnce(() => 1),
      await mostAtOnce(() => {
        throw new Error('cannot tell');
      }),
      await mostAtOnce(() => false),
    ]).toEqual([2, 1, 1, 1, 1]);
  });
});

describe('the log and onProgress callbacks a tool is given', () => {
  it('take anything: progress reaches consumers as JSON-safe data, log text is described', async () => {
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    const probe = defineTool({
      name: 'probe',
      description: 'Reports progress.',
      access: 'read',
      input: z.object({}),
      run: async (_input, context) => {
        context.onProgress(circular);
        context.onProgress(10n);
        context.onProgress({ kept: 1, dropped: () => 1, list: [undefined] });
        context.onProgress(undefined);
        context.log(Symbol('odd') as unknown as string);
        context.log({ code: 'E1' } as unknown as string);
        return 'done';
      },
    });
    const system = createAgentSystem({
      model: scripted([{ toolCalls: [{ id: 'c1', name: 'probe', input: {} }] }, { text: 'Seen.' }]),
      tools: [probe],
      projectInstructions: false,
    });
    const agent = await system.createAgent({ id: 'a' });
    const seen: LiveEvent[] = [];
    const events = agent.events();
    const collecting = (async () => {
      for await (const event of events) seen.push(event);
    })();
    await agent.run('go');
    await system.dispose();
    await collecting;
    // Every live event can be encoded (the CLI's --json and the inspector do exactly this).
    expect(() => JSON.stringify(seen)).not.toThrow();
    expect(seen.filter((event) => event.type === 'tool.progress').map((event) => event.progress)).toEqual([
      'unencodable progress: an object',
      'unencodable progress: 10n',
      { kept: 1, list: [null] },
      null,
    ]);
    expect(seen.filter((event) => event.type === 'runtime.error').map((event) => event.message)).toEqual([
      '[probe] a symbol',
      '[probe] {"code":"E1"}',
    ]);
    const result = agent.log().find((event) => event.type === 'tool.result');
    expect(result?.data).toEqual({ callId: 'c1', outcome: 'ok', content: 'done' });
  });
});
