import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SimulatedClock } from '../../src/core/clock.ts';
import { ConfigError } from '../../src/errors/config-error.ts';
import { anthropic } from '../../src/providers/anthropic.ts';
import { collect, plain } from '../support/provider-stream.ts';
import { type AnthropicServer, startAnthropicServer } from '../support/wire/anthropic-server.ts';
import { sampleConversation } from '../support/wire/conversation.ts';
import { sse } from '../support/wire/fake-server.ts';

let server: AnthropicServer;
beforeEach(async () => {
  server = await startAnthropicServer();
});
afterEach(async () => {
  await server.close();
});

const thinkingPart = {
  provider: 'anthropic',
  type: 'thinking',
  data: { type: 'thinking', thinking: 'Plan.', signature: 'sig' },
};
const redactedPart = {
  provider: 'anthropic',
  type: 'redacted_thinking',
  data: { type: 'redacted_thinking', data: 'xyz' },
};

/** A raw Messages stream, for shapes the neutral reply cannot express. */
function rawStream(blocks: string[], stopReason: string): void {
  const event = (type: string, data: Record<string, unknown>) => sse({ type, ...data }, type);
  server.enqueue({
    type: 'sse',
    ending: 'end',
    messages: [
      event('message_start', {
        message: {
          id: 'm',
          type: 'message',
          role: 'assistant',
          model: 'x',
          content: [],
          usage: { input_tokens: 1, output_tokens: 1 },
        },
      }),
      ...blocks,
      event('message_delta', {
        delta: { stop_reason: stopReason, stop_sequence: null },
        usage: { output_tokens: 2 },
      }),
      event('message_stop', {}),
    ],
  });
}

describe('anthropic request', () => {
  it('projects the conversation, tools, thinking and limits onto one Messages request', async () => {
    const provider = anthropic({
      model: 'claude-test',
      apiKey: 'test-key',
      baseURL: server.url,
      maxTokens: 4096,
      thinking: { budgetTokens: 2048 },
      // The breakpoints have their own test (prompt-cache.test.ts): here, the request without them.
      cacheControl: false,
    });
    server.reply({ turn: { text: ['ok'] } });
    await collect(
      provider,
      sampleConversation([thinkingPart, redactedPart, { provider: 'openai', type: 'reasoning', data: {} }]),
    );
    const [sent] = server.requests;
    expect(sent?.path).toBe('/v1/messages');
    expect(sent?.headers['x-stainless-retry-count']).toBe('0');
    expect(`${sent?.headers.authorization ?? ''}${sent?.headers['x-api-key'] ?? ''}`).toMatch(/test-key/);
    expect(sent?.body).toEqual({
      model: 'claude-test',
      max_tokens: 4096,
      stream: true,
      system: 'You are a careful coding agent.',
      thinking: { type: 'enabled', budget_tokens: 2048 },
      tools: [
        {
          name: 'read_file',
          description: 'Read a file.',
          input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
        },
        { name: 'list_dir', description: 'List a folder.', input_schema: { type: 'object', properties: {} } },
      ],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Read a.ts please.' }] },
        {
          role: 'assistant',
          content: [
            thinkingPart.data,
            redactedPart.data,
            { type: 'text', text: 'Reading it.' },
            { type: 'tool_use', id: 'call_1', name: 'read_file', input: { path: 'a.ts' } },
            // Unparseable arguments cannot go back as a string: the API wants an object.
            { type: 'tool_use', id: 'call_2', name: 'list_dir', input: {} },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'call_1', content: 'export {}' },
            { type: 'tool_result', tool_use_id: 'call_2', content: 'invalid JSON arguments', is_error: true },
            { type: 'text', text: 'Thanks. Now summarise.' },
          ],
        },
      ],
    });
  });

  it('refuses a thinking budget that leaves no room for an answer', () => {
    expect(() => anthropic({ model: 'm', maxTokens: 1000, thinking: { budgetTokens: 1000 } })).toThrow(
      ConfigError,
    );
  });
});

describe('anthropic stream', () => {
  const provider = () => anthropic({ model: 'claude-test', apiKey: 'test-key', baseURL: server.url });

  it('maps every stop reason, and unknown ones to other', async () => {
    const reasons = [
      ['end_turn', 'end_turn'],
      ['tool_use', 'tool_use'],
      ['max_tokens', 'max_tokens'],
      ['stop_sequence', 'stop_sequence'],
      ['refusal', 'refusal'],
      ['pause_turn', 'pause_turn'],
      ['model_context_window_exceeded', 'max_tokens'],
      ['brand_new_reason', 'other'],
    ];
    const mapped: unknown[] = [];
    for (const [vendor] of reasons) {
      rawStream([], vendor!);
      mapped.push((await collect(provider())).at(-1));
    }
    expect(mapped).toEqual(reasons.map(([, ours]) => ({ type: 'done', stopReason: ours })));
  });

  it('emits a redacted thinking block as a provider part', async () => {
    const event = (type: string, data: Record<string, unknown>) => sse({ type, ...data }, type);
    rawStream(
      [
        event('content_block_start', { index: 0, content_block: { type: 'redacted_thinking', data: 'xyz' } }),
        event('content_block_stop', { index: 0 }),
      ],
      'end_turn',
    );
    expect(await collect(provider())).toEqual([
      { type: 'provider_part', part: redactedPart },
      { type: 'usage', usage: { inputTokens: 1, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 } },
      { type: 'done', stopReason: 'end_turn' },
    ]);
  });

  it('classifies an overloaded_error event in mid-stream as overloaded', async () => {
    server.reply({ turn: { text: ['partial'], ending: 'error_event', errorType: 'overloaded_error' } });
    expect(plain(await collect(provider()))).toEqual([
      { type: 'text.delta', text: 'partial' },
      {
        type: 'error',
        error: { kind: 'overloaded', retryable: true, retryAfterMs: undefined, status: undefined },
      },
    ]);
  });

  it('reads retry-after in seconds and as an HTTP date on the injected clock', async () => {
    const clock = new SimulatedClock(Date.parse('Sun, 29 Nov 2026 19:00:00 GMT'));
    const withClock = anthropic({ model: 'claude-test', apiKey: 'test-key', baseURL: server.url, clock });
    server.reply({ httpError: { status: 429, message: 'slow', headers: { 'retry-after': '7' } } });
    server.reply({
      httpError: {
        status: 529,
        message: 'busy',
        headers: { 'retry-after': 'Sun, 29 Nov 2026 19:00:30 GMT' },
      },
    });
    const first = await collect(withClock);
    const second = await collect(withClock);
    expect(plain([...first, ...second])).toEqual([
      { type: 'error', error: { kind: 'rate_limit', retryable: true, retryAfterMs: 7000, status: 429 } },
      { type: 'error', error: { kind: 'overloaded', retryable: true, retryAfterMs: 30_000, status: 529 } },
    ]);
    expect(server.requests.length).toBe(2);
  });

  it('reports a rejected key as auth, not retryable', async () => {
    server.reply({ httpError: { status: 401, message: 'invalid x-api-key' } });
    const [event] = await collect(provider());
    expect(event?.type === 'error' ? event.error.toJSON() : event).toEqual({
      kind: 'auth',
      retryable: false,
      status: 401,
      message: '401 authentication_error: invalid x-api-key',
    });
  });

  it('reports a prompt that is too long as context_overflow', async () => {
    server.reply({
      httpError: { status: 400, message: 'prompt is too long: 210000 tokens > 200000 maximum' },
    });
    expect(plain(await collect(provider()))).toEqual([
      {
        type: 'error',
        error: { kind: 'context_overflow', retryable: false, retryAfterMs: undefined, status: 400 },
      },
    ]);
  });

  it('ends with aborted, without a request, when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const events = [];
    for await (const event of provider().stream(sampleConversation(), controller.signal)) events.push(event);
    expect(plain(events)).toEqual([
      {
        type: 'error',
        error: { kind: 'aborted', retryable: false, retryAfterMs: undefined, status: undefined },
      },
    ]);
    expect(server.requests.length).toBe(0);
  });
});
