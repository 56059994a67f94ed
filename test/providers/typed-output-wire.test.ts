// Typed results through every adapter on the wire: a local server speaks the vendor's streaming format and
// the real SDK talks to it. Each backend is asked for the output the way its API can — OpenAI Chat's
// `response_format`, the Responses API's `text.format`, Anthropic's `output_config.format` (models with
// structured outputs) or the final-answer tool (the others), the AI SDK's `responseFormat` — and each run
// is checked three ways: valid at once, invalid then fixed (the feedback reaches the vendor), and invalid
// past `maxOutputRetries`.
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { aiSdk } from '../../src/providers/ai-sdk.ts';
import { anthropic } from '../../src/providers/anthropic.ts';
import { openai } from '../../src/providers/openai.ts';
import type { Provider } from '../../src/providers/types.ts';
import { createAgentSystem } from '../../src/runtime/create-agent-system.ts';
import { startAnthropicServer } from '../support/wire/anthropic-server.ts';
import type { FakeServer } from '../support/wire/fake-server.ts';
import { startOpenAIChatServer } from '../support/wire/openai-chat-server.ts';
import { startOpenAIResponsesServer } from '../support/wire/openai-responses-server.ts';
import type { WireReply } from '../support/wire/reply.ts';
import { blocksOf } from '../support/wire-harnesses.ts';

type Body = Record<string, unknown>;

const answer = z.strictObject({ city: z.string(), celsius: z.number() });
/** The JSON Schema of `answer` as every vendor is shown it (closed and all required: OpenAI's strict mode). */
const answerSchema = {
  type: 'object',
  properties: { city: { type: 'string' }, celsius: { type: 'number' } },
  required: ['city', 'celsius'],
  additionalProperties: false,
};

type Backend = {
  server: FakeServer & { reply(reply: WireReply): void };
  provider: Provider;
  /** The model's answer as this backend's wire carries it. */
  reply(json: string): WireReply;
  /** How the request asked for the output (the vendor's own fields). */
  format(body: Body): unknown;
  /** The text of the last user message of a request: where a failed check's feedback goes. */
  lastUser(body: Body): string;
};

const textReply = (json: string): WireReply => ({ turn: { text: [json.slice(0, 5), json.slice(5)] } });
const chatLastUser = (body: Body) =>
  String((body.messages as Body[]).filter((message) => message.role === 'user').at(-1)?.content);
const chatFormat = (body: Body) => ({ response_format: body.response_format, tools: body.tools });
const jsonSchemaFormat = {
  type: 'json_schema',
  json_schema: { name: 'output', schema: answerSchema, strict: true },
};

/** The text of the last user message of a Messages API request (its text blocks). */
const anthropicLastUser = (body: Body) => {
  const user = (body.messages as Body[]).filter((message) => message.role === 'user').at(-1);
  const blocks = (user?.content ?? []) as Body[];
  return blocks.flatMap((block) => (block.type === 'text' ? [String(block.text)] : [])).join('\n');
};

const backends: Record<string, () => Promise<Backend>> = {
  'anthropic, structured outputs (output_config.format)': async () => {
    const server = await startAnthropicServer();
    return {
      server,
      provider: anthropic({
        model: 'claude-sonnet-4-5',
        apiKey: 'k',
        baseURL: server.url,
        cacheControl: false,
      }),
      reply: textReply,
      format: (body) => ({ output_config: body.output_config, tools: body.tools }),
      lastUser: anthropicLastUser,
    };
  },
  'anthropic, final-answer tool (a model without structured outputs)': async () => {
    const server = await startAnthropicServer();
    return {
      server,
      provider: anthropic({
        model: 'claude-3-7-sonnet',
        apiKey: 'k',
        baseURL: server.url,
        cacheControl: false,
      }),
      reply: (json) => ({
        turn: {
          toolCalls: [
            { id: 'toolu_1', name: 'final_answer', argumentPieces: [json.slice(0, 4), json.slice(4)] },
          ],
        },
      }),
      format: (body) => ({
        output_config: body.output_config,
        tools: (body.tools as Body[]).map(({ name, input_schema }) => ({ name, input_schema })),
      }),
      lastUser: anthropicLastUser,
    };
  },
  'openai chat completions (response_format)': async () => {
    const server = await startOpenAIChatServer();
    return {
      server,
      provider: openai({ model: 'gpt-test', apiKey: 'k', baseURL: `${server.url}/v1` }),
      reply: textReply,
      format: chatFormat,
      lastUser: chatLastUser,
    };
  },
  'openai responses (text.format)': async () => {
    const server = await startOpenAIResponsesServer();
    return {
      server,
      provider: openai({ model: 'gpt-test', apiKey: 'k', baseURL: `${server.url}/v1`, api: 'responses' }),
      reply: textReply,
      format: (body) => ({ text: body.text, tools: body.tools }),
      lastUser: (body) => {
        const inputs = blocksOf(body, 'input').filter((item) => item.role === 'user');
        return String(inputs.at(-1)?.content);
      },
    };
  },
  'ai sdk, openai-compatible with structured outputs (responseFormat)': async () => {
    const server = await startOpenAIChatServer();
    const compatible = createOpenAICompatible({
      name: 'compatible',
      baseURL: `${server.url}/v1`,
      apiKey: 'k',
      supportsStructuredOutputs: true,
    });
    return {
      server,
      provider: aiSdk({ model: compatible.chatModel('gpt-test') }),
      reply: textReply,
      format: chatFormat,
      lastUser: chatLastUser,
    };
  },
};

/** What each backend's requests carry to ask for the output. */
const expectedFormat: Record<string, unknown> = {
  'anthropic, structured outputs (output_config.format)': {
    output_config: { format: { type: 'json_schema', schema: answerSchema } },
    tools: undefined,
  },
  'anthropic, final-answer tool (a model without structured outputs)': {
    output_config: undefined,
    tools: [{ name: 'final_answer', input_schema: answerSchema }],
  },
  'openai chat completions (response_format)': { response_format: jsonSchemaFormat, tools: undefined },
  'openai responses (text.format)': {
    text: { format: { type: 'json_schema', name: 'output', schema: answerSchema, strict: true } },
    tools: undefined,
  },
  'ai sdk, openai-compatible with structured outputs (responseFormat)': {
    response_format: jsonSchemaFormat,
    tools: undefined,
  },
};

let open: FakeServer | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

async function typedRun(backend: Backend, replies: string[], maxOutputRetries?: number) {
  open = backend.server;
  for (const json of replies) backend.server.reply(backend.reply(json));
  const system = createAgentSystem({ model: backend.provider, projectInstructions: false });
  const agent = await system.createAgent({ id: 'typed' });
  const options = maxOutputRetries === undefined ? { output: answer } : { output: answer, maxOutputRetries };
  const result = await agent.run('How warm is Lisbon?', options);
  const checks = agent.log().flatMap((event) => (event.type === 'output.checked' ? [event.data.valid] : []));
  const texts = agent.log().flatMap((event) => (event.type === 'assistant.message' ? [event.data] : []));
  await system.dispose();
  return { result, checks, texts, bodies: backend.server.requests.map((request) => request.body) };
}

describe.each(Object.keys(backends))('typed output on the wire: %s', (name) => {
  it('asks for the schema and resolves with the parsed output of a valid first answer', async () => {
    const backend = await backends[name]!();
    const run = await typedRun(backend, ['{"city":"Lisbon","celsius":21.5}']);
    expect(run.result).toMatchObject({ reason: 'completed', output: { city: 'Lisbon', celsius: 21.5 } });
    expect(run.checks).toEqual([true]);
    // Whatever the wire carried it as, the answer is logged as text, with no tool call left over.
    expect(run.texts.map(({ text, toolCalls, stopReason }) => ({ text, toolCalls, stopReason }))).toEqual([
      { text: '{"city":"Lisbon","celsius":21.5}', toolCalls: [], stopReason: 'end_turn' },
    ]);
    expect(run.bodies.map((body) => backend.format(body))).toEqual([expectedFormat[name]]);
  });

  it('feeds an invalid answer back through the vendor and resolves with the fixed one', async () => {
    const backend = await backends[name]!();
    const run = await typedRun(backend, [
      '{"city":"Lisbon","celsius":"warm"}',
      '{"city":"Lisbon","celsius":22}',
    ]);
    expect(run.result).toMatchObject({ reason: 'completed', output: { city: 'Lisbon', celsius: 22 } });
    expect(run.checks).toEqual([false, true]);
    expect(run.bodies).toHaveLength(2);
    expect(backend.lastUser(run.bodies[1]!)).toBe(
      'Your final answer was not accepted: the answer does not match the schema:\n' +
        '✖ Invalid input: expected number, received string\n  → at celsius\n' +
        'Give your final answer again, as JSON that matches the required schema and nothing else.',
    );
    expect(run.bodies.map((body) => backend.format(body))).toEqual([
      expectedFormat[name],
      expectedFormat[name],
    ]);
  });

  it('ends invalid_output past maxOutputRetries, naming what the last answer lacked', async () => {
    const backend = await backends[name]!();
    const run = await typedRun(backend, ['{"city":"Lisbon"}', '{"celsius":20}'], 1);
    expect(run.result.reason).toBe('invalid_output');
    expect(run.result.output).toBeUndefined();
    expect(run.result.error?.kind).toBe('invalid_output');
    expect(run.result.error?.message).toMatch(
      /the last check said: .*\n✖ Invalid input: expected string, received undefined\n {2}→ at city$/,
    );
    expect(run.checks).toEqual([false, false]);
  });
});
