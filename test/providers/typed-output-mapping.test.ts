// How the adapters map a typed turn's output format onto their vendor's request, case by case: Anthropic's
// choice between `output_config.format` and the final-answer tool (by model, by option, and by what the
// structured-outputs subset can hold), the final-answer tool's call read back as the answer, the cache
// breakpoint on that tool, and when OpenAI's strict mode can be asked for.
import type { RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError } from '../../src/errors/config-error.ts';
import { anthropic, toAnthropicRequest } from '../../src/providers/anthropic.ts';
import { structuredOutputsFor } from '../../src/providers/anthropic-output.ts';
import { AnthropicStreamState } from '../../src/providers/anthropic-stream.ts';
import { isStrictSchema } from '../../src/providers/output-format.ts';
import type { ModelEvent, ModelRequest } from '../../src/providers/types.ts';
import { scripted } from '../../src/testing.ts';
import { sampleConversation } from '../support/wire/conversation.ts';

const schemaOf = (schema: z.ZodType) => {
  const described = z.toJSONSchema(schema, { target: 'draft-7', io: 'input' }) as Record<string, unknown>;
  delete described.$schema;
  return described;
};
const counted = schemaOf(z.object({ name: z.string(), count: z.number().int() }));
const typed = (schema: Record<string, unknown>): ModelRequest => ({
  ...sampleConversation(),
  output: { schema },
});
const base = { model: 'claude-test', maxTokens: 100 };
/** The tools of a request, as plain objects (the SDK's tool union has members without a name). */
const toolsOf = (params: { tools?: unknown }) =>
  (params.tools ?? []) as { name: string; cache_control?: unknown }[];

describe('anthropic: how a typed turn asks for its output', () => {
  it('picks structured outputs for the models that have them, the final-answer tool for the others', () => {
    expect(structuredOutputsFor('claude-opus-4-6', undefined)).toBe('native');
    expect(structuredOutputsFor('claude-haiku-4-5-20251001', undefined)).toBe('native');
    expect(structuredOutputsFor('claude-3-7-sonnet-latest', undefined)).toBe('tool');
    expect(structuredOutputsFor('claude-opus-4-6', 'tool')).toBe('tool');
    expect(structuredOutputsFor('my-proxy-model', 'native')).toBe('native');
    expect(() => anthropic({ model: 'm', structuredOutputs: 'json' } as never)).toThrow(ConfigError);
  });

  it('reshapes the schema with the SDK into what output_config.format takes', () => {
    const { params, finalAnswer } = toAnthropicRequest(typed(counted), { ...base, outputs: 'native' });
    expect(finalAnswer).toBe(false);
    // Closed objects; bounds the subset does not take move into the description.
    expect(params.output_config).toEqual({
      format: {
        type: 'json_schema',
        schema: {
          type: 'object',
          properties: {
            name: { type: 'string' },
            count: {
              type: 'integer',
              description: '{minimum: -9007199254740991, maximum: 9007199254740991}',
            },
          },
          additionalProperties: false,
          required: ['name', 'count'],
        },
      },
    });
    expect(toolsOf(params).map((tool) => tool.name)).toEqual(['read_file', 'list_dir']);
  });

  it('falls back to the final-answer tool for a schema the subset cannot hold', () => {
    const anything = schemaOf(z.object({ data: z.unknown() }));
    const { params, finalAnswer } = toAnthropicRequest(typed(anything), { ...base, outputs: 'native' });
    expect(finalAnswer).toBe(true);
    expect(params.output_config).toBeUndefined();
    expect(params.tools?.at(-1)).toMatchObject({ name: 'final_answer', input_schema: anything });
  });

  it('puts the final-answer tool last, where the cache breakpoint of the tool list goes', () => {
    const { params } = toAnthropicRequest(typed(counted), { ...base, outputs: 'tool', cache: { ttl: '5m' } });
    expect(toolsOf(params).map((tool) => [tool.name, 'cache_control' in tool])).toEqual([
      ['read_file', false],
      ['list_dir', false],
      ['final_answer', true],
    ]);
  });

  it('sends nothing of the kind for a turn that asks for free text', () => {
    const { params, finalAnswer } = toAnthropicRequest(sampleConversation(), { ...base, outputs: 'native' });
    expect([finalAnswer, params.output_config, params.tools?.length]).toEqual([false, undefined, 2]);
  });
});

describe('anthropic stream: the final-answer tool', () => {
  const read = (events: object[], finalAnswer: boolean) => {
    const state = new AnthropicStreamState({ finalAnswer });
    const out: ModelEvent[] = [];
    for (const event of events) out.push(...state.handle(event as RawMessageStreamEvent));
    out.push(...state.finish());
    return { out, stopReason: state.answeredStopReason() };
  };
  const toolUse = (index: number, id: string, name: string, json: string) => [
    { type: 'content_block_start', index, content_block: { type: 'tool_use', id, name, input: {} } },
    { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: json } },
    { type: 'content_block_stop', index },
  ];
  const stop = { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 1 } };

  it('reads its call as the answer text, and a stop for it alone as end_turn', () => {
    const { out, stopReason } = read(
      [...toolUse(0, 'a', 'final_answer', '{"name": "x", "count": 1}'), stop],
      true,
    );
    expect(out).toEqual([{ type: 'text.delta', text: '{"name":"x","count":1}' }]);
    expect(stopReason).toBe('end_turn');
  });

  it('keeps other calls made beside it as calls, and the stop as tool_use', () => {
    const events = [
      ...toolUse(0, 'a', 'read_file', '{"path":"a"}'),
      ...toolUse(1, 'b', 'final_answer', '{}'),
      stop,
    ];
    const { out, stopReason } = read(events, true);
    expect(out).toEqual([
      { type: 'tool_call', call: { id: 'a', name: 'read_file', input: { path: 'a' } } },
      { type: 'text.delta', text: '{}' },
    ]);
    expect(stopReason).toBe('tool_use');
  });

  it('is an ordinary tool call in a turn that did not ask through the tool', () => {
    const { out, stopReason } = read([...toolUse(0, 'a', 'final_answer', '{}'), stop], false);
    expect(out).toEqual([{ type: 'tool_call', call: { id: 'a', name: 'final_answer', input: {} } }]);
    expect(stopReason).toBe('tool_use');
  });
});

describe("OpenAI's strict mode", () => {
  it('is asked for only when every object is closed and requires all its properties', () => {
    expect(
      isStrictSchema(
        schemaOf(z.strictObject({ a: z.string(), b: z.array(z.strictObject({ c: z.number() })) })),
      ),
    ).toBe(true);
    expect(isStrictSchema(schemaOf(z.object({ a: z.string() })))).toBe(false);
    expect(isStrictSchema(schemaOf(z.strictObject({ a: z.string().optional() })))).toBe(false);
    expect(isStrictSchema(schemaOf(z.strictObject({ a: z.array(z.object({ c: z.number() })) })))).toBe(false);
    expect(isStrictSchema(schemaOf(z.strictObject({ a: z.enum(['x', 'y']) })))).toBe(true);
  });
});

describe('the scripted model', () => {
  it('answers a json step with its JSON text, and refuses a step with both text and json', async () => {
    const model = scripted([{ json: { a: [1, 'b'] } }]);
    const events: ModelEvent[] = [];
    for await (const event of model.stream(sampleConversation(), new AbortController().signal))
      events.push(event);
    expect(
      events
        .filter((event) => event.type === 'text.delta')
        .map((event) => event.text)
        .join(''),
    ).toBe('{"a":[1,"b"]}');
    expect(() => scripted([{ text: 'x', json: {} }])).toThrow(
      'scripted: entries[0] gives its answer as text or as json, not both',
    );
  });
});
