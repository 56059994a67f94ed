// Typed results with the scripted model: `agent.run(prompt, { output })` asks every request of its turn
// for the schema's JSON, checks the final answer, feeds a failed check back to the model within
// `maxOutputRetries`, and resolves with `output` typed by the schema — or ends `invalid_output`. The
// schemas are zod 4, a Standard Schema written here by hand (with and without Standard JSON Schema) and a
// plain JSON Schema; bad options come as a plain JavaScript caller would send them.
import { afterEach, describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { z as z3 } from 'zod3';
import { type Agent, ConfigError, createAgentSystem } from '../../src/index.ts';
import { type ScriptEntry, type ScriptedProvider, scripted } from '../../src/testing.ts';

const systems: ReturnType<typeof createAgentSystem>[] = [];
afterEach(async () => {
  await Promise.all(systems.splice(0).map((system) => system.dispose()));
});

async function agentWith(script: ScriptEntry[]): Promise<{ agent: Agent; model: ScriptedProvider }> {
  const model = scripted(script);
  const system = createAgentSystem({ model, projectInstructions: false });
  systems.push(system);
  return { agent: await system.createAgent(), model };
}

const verdict = z.object({ failing: z.array(z.string()), total: z.number().int() });
const verdictJsonSchema = {
  type: 'object',
  properties: {
    failing: { type: 'array', items: { type: 'string' } },
    total: { type: 'integer', minimum: -9007199254740991, maximum: 9007199254740991 },
  },
  required: ['failing', 'total'],
};

/** The types of the log's events after session.start, with each check's verdict. */
const shape = (agent: Agent) =>
  agent
    .log()
    .slice(1)
    .map((event) =>
      event.type === 'output.checked'
        ? `output.checked:${event.data.valid ? 'valid' : 'invalid'}`
        : event.type,
    );

type Verdict = { failing: string[]; total: number };

/**
 * A Standard Schema written by hand, as a library other than zod would make one: `validate` (async) and
 * `jsonSchema.input` (Standard JSON Schema), typed by `types`.
 */
function handMadeSchema(options: { describes: boolean }) {
  const validate = async (value: unknown) => {
    const object = value as Partial<Verdict> | null;
    const ok = Array.isArray(object?.failing) && Number.isInteger(object?.total);
    return ok
      ? { value: { failing: object!.failing!, total: object!.total! } }
      : { issues: [{ message: 'expected { failing: string[], total: integer }', path: ['total'] }] };
  };
  return {
    '~standard': {
      version: 1 as const,
      vendor: 'by-hand',
      validate,
      types: undefined as unknown as { input: unknown; output: Verdict },
      ...(options.describes
        ? { jsonSchema: { input: () => verdictJsonSchema, output: () => verdictJsonSchema } }
        : {}),
    },
  };
}

describe('agent.run with output', () => {
  it('resolves with the parsed output when the first answer is valid, and asks every request for the schema', async () => {
    const { agent, model } = await agentWith([{ json: { failing: ['a.test.ts'], total: 1 } }]);
    const result = await agent.run('Which tests fail?', { output: verdict });
    expect(result).toMatchObject({ reason: 'completed', output: { failing: ['a.test.ts'], total: 1 } });
    expect(result.error).toBeUndefined();
    if (result.reason === 'completed') expectTypeOf(result.output).toEqualTypeOf<Verdict>();
    expect(model.requests.map((request) => request.output)).toEqual([{ schema: verdictJsonSchema }]);
    expect(shape(agent)).toEqual([
      'inbox.queued',
      'turn.start',
      'inbox.claimed',
      'user.message',
      'step.start',
      'assistant.message',
      'step.end',
      'output.checked:valid',
      'turn.end',
    ]);
    const spec = { schema: verdictJsonSchema, maxRetries: 2 };
    expect(agent.log()[1]?.data.output).toEqual(spec);
    expect(agent.log()[2]?.data).toEqual({ output: spec });
  });

  it('feeds an invalid answer back to the model and resolves with the one that passes', async () => {
    const { agent, model } = await agentWith([
      { text: 'Two tests fail.' },
      { json: { failing: ['a.test.ts'], total: 'one' } },
      { json: { failing: ['a.test.ts'], total: 1 } },
    ]);
    const result = await agent.run('Which tests fail?', { output: verdict });
    expect(result.reason).toBe('completed');
    expect(result.output).toEqual({ failing: ['a.test.ts'], total: 1 });
    expect(shape(agent).filter((type) => type.startsWith('output.checked'))).toEqual([
      'output.checked:invalid',
      'output.checked:invalid',
      'output.checked:valid',
    ]);
    // The model reads each failed check as the user message after its answer.
    const third = model.requests[2]!.messages;
    expect(third.slice(1)).toEqual([
      { role: 'assistant', text: 'Two tests fail.', toolCalls: [] },
      {
        role: 'user',
        content:
          'Your final answer was not accepted: the answer is not JSON: "Two tests fail."\n' +
          'Give your final answer again, as JSON that matches the required schema and nothing else.',
      },
      { role: 'assistant', text: '{"failing":["a.test.ts"],"total":"one"}', toolCalls: [] },
      {
        role: 'user',
        content:
          'Your final answer was not accepted: the answer does not match the schema:\n' +
          '✖ Invalid input: expected number, received string\n  → at total\n' +
          'Give your final answer again, as JSON that matches the required schema and nothing else.',
      },
    ]);
  });

  it('ends the turn invalid_output past maxOutputRetries, saying which check failed last', async () => {
    const { agent, model } = await agentWith([{ text: 'no' }, { json: { failing: 'all' } }]);
    const result = await agent.run('Which tests fail?', { output: verdict, maxOutputRetries: 1 });
    expect(result.reason).toBe('invalid_output');
    expect(result.output).toBeUndefined();
    expect(result.error).toEqual({
      kind: 'invalid_output',
      retryable: false,
      message:
        "the model's final answer failed its output check 2 times, the retries allowed (maxOutputRetries: 1) " +
        'included; the last check said: the answer does not match the schema:\n' +
        '✖ Invalid input: expected array, received string\n  → at failing\n' +
        '✖ Invalid input: expected number, received undefined\n  → at total',
    });
    model.assertConsumed();
    expect(agent.log().at(-1)?.data).toMatchObject({ reason: 'invalid_output' });
  });

  it('with maxOutputRetries 0, ends at the first invalid answer', async () => {
    const { agent } = await agentWith([{ text: 'no' }]);
    const result = await agent.run('Go', { output: verdict, maxOutputRetries: 0 });
    expect(result.reason).toBe('invalid_output');
    expect(shape(agent).slice(-2)).toEqual(['output.checked:invalid', 'turn.end']);
  });

  it('checks after the tools: a step that calls tools is not a final answer', async () => {
    const { agent } = await agentWith([
      { toolCalls: [{ name: 'missing', input: {} }] },
      { json: { failing: [], total: 0 } },
    ]);
    const result = await agent.run('Go', { output: verdict });
    expect(result.output).toEqual({ failing: [], total: 0 });
    expect(shape(agent).filter((type) => type.startsWith('output.checked'))).toEqual([
      'output.checked:valid',
    ]);
  });

  it('gives a queued plain follow-up its own turn after a typed one, and two typed runs a turn each', async () => {
    const { agent, model } = await agentWith([
      { json: { failing: [], total: 0 } },
      { json: { failing: ['b'], total: 1 } },
      { text: 'Plain.' },
    ]);
    const first = agent.run('One', { output: verdict });
    const second = agent.run('Two', { output: verdict });
    const third = agent.run('Three');
    const results = await Promise.all([first, second, third]);
    expect(results.map((result) => [result.turn, result.reason, result.output])).toEqual([
      [1, 'completed', { failing: [], total: 0 }],
      [2, 'completed', { failing: ['b'], total: 1 }],
      [3, 'completed', undefined],
    ]);
    expect(model.requests.map((request) => request.output !== undefined)).toEqual([true, true, false]);
  });

  it('takes a Standard Schema that is not zod, describing itself through Standard JSON Schema', async () => {
    const { agent, model } = await agentWith([
      { json: { failing: 'x' } },
      { json: { failing: ['x'], total: 1 } },
    ]);
    const result = await agent.run('Go', { output: handMadeSchema({ describes: true }) });
    expect(result.output).toEqual({ failing: ['x'], total: 1 });
    if (result.reason === 'completed') expectTypeOf(result.output).toEqualTypeOf<Verdict>();
    expect(model.requests[0]?.output).toEqual({ schema: verdictJsonSchema });
    const failed = agent.log().find((event) => event.type === 'output.checked');
    expect(failed?.data.error).toBe(
      'the answer does not match the schema:\n✖ expected { failing: string[], total: integer }\n  → at total',
    );
  });

  it('takes a Standard Schema that cannot describe itself with its jsonSchema beside it', async () => {
    const { agent, model } = await agentWith([{ json: { failing: [], total: 2 } }]);
    const schema = handMadeSchema({ describes: false });
    const result = await agent.run('Go', { output: schema, jsonSchema: verdictJsonSchema as never });
    expect(result.output).toEqual({ failing: [], total: 2 });
    expect(model.requests[0]?.output).toEqual({ schema: verdictJsonSchema });
  });

  it('takes a zod 3 schema with its JSON Schema beside it, typed by zod 3', async () => {
    const { agent, model } = await agentWith([
      { json: { failing: [], total: 'x' } },
      { json: { failing: [], total: 4 } },
    ]);
    const zod3 = z3.object({ failing: z3.array(z3.string()), total: z3.number().int() });
    const result = await agent.run('Go', { output: zod3, jsonSchema: verdictJsonSchema as never });
    expect(result.output).toEqual({ failing: [], total: 4 });
    if (result.reason === 'completed') expectTypeOf(result.output).toEqualTypeOf<Verdict>();
    expect(model.requests[0]?.output).toEqual({ schema: verdictJsonSchema });
    expect(await agentWith([]).then(({ agent }) => agent.run('Go', { output: zod3 }).catch(String))).toMatch(
      /^ConfigError: agent\.run: output cannot describe itself as JSON Schema \(a zod schema without Standard JSON Schema\)/,
    );
  });

  it('takes a plain JSON Schema and checks the answer with it', async () => {
    const { agent } = await agentWith([{ json: { failing: [] } }, { json: { failing: [], total: 3 } }]);
    const result = await agent.run('Go', { output: { ...verdictJsonSchema, type: 'object' } });
    expect(result.output).toEqual({ failing: [], total: 3 });
    if (result.reason === 'completed') expectTypeOf(result.output).toEqualTypeOf<Record<string, unknown>>();
  });

  it('refuses an answer whose schema throws, and tells the model why', async () => {
    const throwing = z.object({ n: z.number() }).refine(() => {
      throw new Error('refinement broke');
    });
    const { agent } = await agentWith([{ json: { n: 1 } }]);
    const result = await agent.run('Go', { output: throwing, maxOutputRetries: 0 });
    expect(result.reason).toBe('invalid_output');
    expect(agent.log().find((event) => event.type === 'output.checked')?.data.error).toBe(
      'the output schema could not check it (it threw: refinement broke)',
    );
  });
});

describe('agent.stream with output', () => {
  it('resolves stream.result with the typed output, and ends with turn.end carrying it', async () => {
    const { agent } = await agentWith([{ text: 'nope' }, { json: { failing: ['c'], total: 1 } }]);
    const stream = agent.stream('Go', { output: verdict });
    const events = [];
    for await (const event of stream) events.push(event);
    const result = await stream.result;
    expect(result.output).toEqual({ failing: ['c'], total: 1 });
    if (result.reason === 'completed') expectTypeOf(result.output).toEqualTypeOf<Verdict>();
    expect(events.at(-1)).toEqual({ type: 'turn.end', result });
    expect(events.filter((event) => event.type === 'step.start')).toHaveLength(2);
  });

  it('rejects the first next() with the ConfigError of a bad output', async () => {
    const { agent } = await agentWith([]);
    const stream = agent.stream('Go', { output: 42 } as never);
    await expect(stream[Symbol.asyncIterator]().next()).rejects.toThrow(ConfigError);
    await expect(stream.result).rejects.toThrow(
      'agent.stream: output must be a Standard Schema (a zod 4 schema such as z.object({...}), or valibot, arktype…) or a JSON Schema of an object ({ type: "object", ... }), got 42',
    );
  });
});

describe('bad output options, as a plain JavaScript caller sends them', () => {
  const bad = async (options: unknown) => {
    const { agent } = await agentWith([]);
    const error = await agent.run('Go', options as never).catch((caught: unknown) => caught);
    expect(ConfigError.isInstance(error)).toBe(true);
    expect(agent.log()).toHaveLength(1);
    return (error as Error).message;
  };

  it('refuses a value that is no schema', async () => {
    expect(await bad({ output: 42 })).toMatch(/^agent\.run: output must be a Standard Schema .* got 42$/);
    expect(await bad({ output: { properties: {} } })).toMatch(
      /^agent\.run: output must be a Standard Schema/,
    );
  });

  it('refuses a Standard Schema without a JSON Schema, saying what to pass', async () => {
    expect(await bad({ output: handMadeSchema({ describes: false }) })).toBe(
      'agent.run: output cannot describe itself as JSON Schema (a by-hand schema without Standard JSON ' +
        'Schema); pass its JSON Schema as jsonSchema too (zod-to-json-schema for zod 3, ' +
        '@valibot/to-json-schema for valibot), or use a zod 4 schema',
    );
  });

  it('refuses a schema that does not describe an object', async () => {
    expect(await bad({ output: z.array(z.string()) })).toBe(
      "agent.run: output must describe a JSON object (the vendors' structured outputs ask for one), but its " +
        'JSON Schema describes "array"; wrap it in an object, e.g. z.object({ value: … })',
    );
  });

  it('refuses retries that are not a whole number, options without output and unknown options', async () => {
    expect(await bad({ output: verdict, maxOutputRetries: -1 })).toBe(
      'agent.run: maxOutputRetries must be a whole number (0 or more), got -1',
    );
    expect(await bad({ maxOutputRetries: 3 })).toBe('agent.run: maxOutputRetries only goes with output');
    expect(await bad({ ouput: verdict })).toBe('agent.run: unknown option "ouput" (did you mean "output"?)');
    expect(await bad(7)).toBe('agent.run: options must be an object, got 7');
  });
});
