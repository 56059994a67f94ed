// `agentchart/ai-sdk` against the AI SDK's own mock language models (ai/test): what each stream part becomes,
// what goes back on the next request, usage and finish reasons, abort, and errors in agentchart's kinds.
// The same adapter over HTTP (@ai-sdk/openai-compatible and a wire server) runs the provider contract in
// contract.test.ts.

import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type {
  LanguageModelV3StreamPart,
  LanguageModelV4CallOptions,
  LanguageModelV4StreamPart,
  LanguageModelV4StreamResult,
} from '@ai-sdk/provider';
import { APICallError, JSONParseError, LoadAPIKeyError } from '@ai-sdk/provider';
import { convertArrayToReadableStream, MockLanguageModelV3, MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors/config-error.ts';
import { aiSdk } from '../../src/providers/ai-sdk.ts';
import { approvalRefusal } from '../../src/providers/ai-sdk-prompt.ts';
import type { ModelRequest } from '../../src/providers/types.ts';
import { collapse, collect, plain, sampleRequest } from '../support/provider-stream.ts';
import { startOpenAIChatServer } from '../support/wire/openai-chat-server.ts';

const usage = {
  inputTokens: { total: 30, noCache: 20, cacheRead: 7, cacheWrite: 3 },
  outputTokens: { total: 9, text: 5, reasoning: 4 },
};
const counted = { inputTokens: 20, outputTokens: 9, cacheReadTokens: 7, cacheWriteTokens: 3 };

function finish(unified: string, raw: string | undefined): LanguageModelV4StreamPart {
  return { type: 'finish', usage, finishReason: { unified, raw } as never };
}

/** A mock model answering each request with the next list of stream parts. */
function mockModel(...responses: LanguageModelV4StreamPart[][]) {
  return new MockLanguageModelV4({
    provider: 'mock.chat',
    modelId: 'mock-1',
    doStream: responses.map((parts) => ({ stream: convertArrayToReadableStream(parts) })),
  });
}

function followUp(message: ModelRequest['messages'][number], ...rest: ModelRequest['messages']) {
  return { ...sampleRequest, messages: [...sampleRequest.messages, message, ...rest] };
}

const signed = { mock: { signature: 'sig-1' } };
const reasoningAndText: LanguageModelV4StreamPart[] = [
  { type: 'stream-start', warnings: [] },
  { type: 'reasoning-start', id: 'r1' },
  { type: 'reasoning-delta', id: 'r1', delta: 'Think' },
  { type: 'reasoning-delta', id: 'r1', delta: 'ing.' },
  { type: 'reasoning-end', id: 'r1', providerMetadata: signed },
  { type: 'text-start', id: 't1' },
  { type: 'text-delta', id: 't1', delta: 'Ans' },
  { type: 'text-delta', id: 't1', delta: 'wer.' },
  { type: 'text-end', id: 't1' },
  finish('stop', 'stop'),
];

describe('ai-sdk stream', () => {
  it('streams reasoning and text, keeps the signed reasoning, maps all four counts', async () => {
    const model = mockModel(reasoningAndText);
    const provider = aiSdk({ model });
    expect(provider).toMatchObject({ name: 'ai-sdk', model: 'mock.chat/mock-1' });
    const reasoning = { type: 'reasoning', text: 'Thinking.', providerOptions: signed };
    expect(collapse(await collect(provider))).toEqual([
      { type: 'thinking.delta', text: 'Thinking.' },
      { type: 'text.delta', text: 'Answer.' },
      { type: 'provider_part', part: { provider: 'ai-sdk/mock.chat', type: 'reasoning', data: reasoning } },
      { type: 'usage', usage: counted },
      { type: 'done', stopReason: 'end_turn' },
    ]);
  });

  it('sends the request as a prompt with tools, the output cap and the host’s provider options', async () => {
    const model = mockModel(reasoningAndText);
    const providerOptions = { mock: { effort: 'high' } };
    await collect(aiSdk({ model, maxTokens: 1000, providerOptions }));
    const call = model.doStreamCalls[0] as LanguageModelV4CallOptions;
    expect(call.prompt).toEqual([
      { role: 'system', content: 'You are a test.' },
      { role: 'user', content: [{ type: 'text', text: 'Hello' }] },
    ]);
    expect(call.tools).toEqual([
      {
        type: 'function',
        name: 'read_file',
        description: 'Read a file.',
        inputSchema: { type: 'object', properties: {} },
      },
    ]);
    expect(call).toMatchObject({ maxOutputTokens: 1000, providerOptions, toolChoice: { type: 'auto' } });
    expect(call.abortSignal).toBeInstanceOf(AbortSignal);
  });

  it('gives whole tool calls and sends them back with their results, metadata kept', async () => {
    const model = mockModel(
      [
        { type: 'tool-input-start', id: 'c1', toolName: 'read_file' },
        { type: 'tool-input-delta', id: 'c1', delta: '{"path":"a.ts"}' },
        { type: 'tool-input-end', id: 'c1' },
        {
          type: 'tool-call',
          toolCallId: 'c1',
          toolName: 'read_file',
          input: '{"path":"a.ts"}',
          providerMetadata: { google: { thoughtSignature: 'ts-1' } },
        },
        { type: 'tool-call', toolCallId: 'c2', toolName: 'grep', input: '{"pattern":' },
        finish('tool-calls', 'tool_calls'),
      ],
      [finish('stop', 'stop')],
    );
    const provider = aiSdk({ model });
    const events = await collect(provider);
    const first = {
      type: 'tool-call',
      toolCallId: 'c1',
      toolName: 'read_file',
      input: { path: 'a.ts' },
      providerOptions: { google: { thoughtSignature: 'ts-1' } },
    };
    const second = { type: 'tool-call', toolCallId: 'c2', toolName: 'grep', input: '{"pattern":' };
    expect(events).toEqual([
      { type: 'tool_call', call: { id: 'c1', name: 'read_file', input: { path: 'a.ts' } } },
      // Arguments that are not JSON arrive as the raw text, so the tool batch can say what was wrong.
      { type: 'tool_call', call: { id: 'c2', name: 'grep', input: '{"pattern":' } },
      { type: 'provider_part', part: { provider: 'ai-sdk/mock.chat', type: 'tool-call', data: first } },
      { type: 'provider_part', part: { provider: 'ai-sdk/mock.chat', type: 'tool-call', data: second } },
      { type: 'usage', usage: counted },
      { type: 'done', stopReason: 'tool_use' },
    ]);
    const parts = events.flatMap((event) => (event.type === 'provider_part' ? [event.part] : []));
    await collect(
      provider,
      followUp(
        {
          role: 'assistant',
          text: '',
          // The log holds what ran: a repaired input goes back, not the vendor's original.
          toolCalls: [
            { id: 'c1', name: 'read_file', input: { path: 'a.ts' } },
            { id: 'c2', name: 'grep', input: { pattern: 'x' } },
          ],
          providerParts: parts,
        },
        { role: 'tool', callId: 'c1', name: 'read_file', content: 'file text', isError: false },
        { role: 'tool', callId: 'c2', name: 'grep', content: 'bad input', isError: true },
      ),
    );
    expect((model.doStreamCalls[1] as LanguageModelV4CallOptions).prompt.slice(2)).toEqual([
      { role: 'assistant', content: [first, { ...second, input: { pattern: 'x' } }] },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'read_file',
            output: { type: 'text', value: 'file text' },
          },
          {
            type: 'tool-result',
            toolCallId: 'c2',
            toolName: 'grep',
            output: { type: 'error-text', value: 'bad input' },
          },
        ],
      },
    ]);
  });

  it('keeps what the vendor’s server ran, in order, with citations, and continues after pause_turn', async () => {
    const source = {
      type: 'source',
      sourceType: 'url',
      id: 's1',
      url: 'https://a.example',
      title: 'A',
    } as const;
    const model = mockModel(
      [
        {
          type: 'tool-call',
          toolCallId: 'ws1',
          toolName: 'web_search',
          input: '{"query":"q"}',
          providerExecuted: true,
        },
        {
          type: 'tool-result',
          toolCallId: 'ws1',
          toolName: 'web_search',
          result: [{ url: 'https://a.example' }],
        },
        source,
        { type: 'source', sourceType: 'url', id: 's2', url: 'https://b.example' },
        { type: 'text-start', id: 't1', providerMetadata: { mock: { itemId: 'msg_1' } } },
        { type: 'text-delta', id: 't1', delta: 'A says so.' },
        { type: 'text-end', id: 't1', citations: [{ source, startIndex: 0, endIndex: 7, citedText: 'so' }] },
        finish('stop', 'pause_turn'),
      ],
      [finish('stop', 'stop')],
    );
    const provider = aiSdk({ model });
    const events = await collect(provider);
    const data = [
      {
        type: 'tool-call',
        toolCallId: 'ws1',
        toolName: 'web_search',
        input: { query: 'q' },
        providerExecuted: true,
      },
      {
        type: 'tool-result',
        toolCallId: 'ws1',
        toolName: 'web_search',
        output: { type: 'json', value: [{ url: 'https://a.example' }] },
      },
      { type: 'text', text: 'A says so.', providerOptions: { mock: { itemId: 'msg_1' } } },
    ];
    expect(events).toEqual([
      { type: 'text.delta', text: 'A says so.' },
      ...data.map((piece) => ({
        type: 'provider_part',
        part: { provider: 'ai-sdk/mock.chat', type: piece.type, data: piece },
      })),
      {
        type: 'citation',
        citation: { source: 'url', url: 'https://a.example', title: 'A', citedText: 'so', start: 0, end: 7 },
      },
      // A source no passage cites is still a citation, without offsets.
      { type: 'citation', citation: { source: 'url', url: 'https://b.example' } },
      { type: 'usage', usage: counted },
      { type: 'done', stopReason: 'pause_turn' },
    ]);
    const parts = events.flatMap((event) => (event.type === 'provider_part' ? [event.part] : []));
    await collect(
      provider,
      followUp({ role: 'assistant', text: 'A says so.', toolCalls: [], providerParts: parts }),
    );
    expect((model.doStreamCalls[1] as LanguageModelV4CallOptions).prompt.slice(2)).toEqual([
      { role: 'assistant', content: data },
    ]);
  });

  it('declines a tool approval request on the next request', async () => {
    const model = mockModel(
      [
        { type: 'tool-call', toolCallId: 'm1', toolName: 'mcp_tool', input: '{}', providerExecuted: true },
        { type: 'tool-approval-request', approvalId: 'ap1', toolCallId: 'm1' },
        finish('stop', 'stop'),
      ],
      [finish('stop', 'stop')],
    );
    const provider = aiSdk({ model });
    const events = await collect(provider);
    const parts = events.flatMap((event) => (event.type === 'provider_part' ? [event.part] : []));
    expect(parts.map((part) => part.type)).toEqual(['tool-call', 'tool-approval-request']);
    await collect(provider, followUp({ role: 'assistant', text: '', toolCalls: [], providerParts: parts }));
    expect((model.doStreamCalls[1] as LanguageModelV4CallOptions).prompt.slice(2)).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: 'm1', toolName: 'mcp_tool', input: {}, providerExecuted: true },
        ],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-approval-response', approvalId: 'ap1', approved: false, reason: approvalRefusal },
        ],
      },
    ]);
  });

  it('maps every finish reason; a finish that gives none is a stream cut short', async () => {
    const cases: [string, string | undefined, unknown][] = [
      ['stop', 'stop', { type: 'done', stopReason: 'end_turn' }],
      ['length', 'length', { type: 'done', stopReason: 'max_tokens' }],
      ['content-filter', 'content_filter', { type: 'done', stopReason: 'refusal' }],
      ['stop', 'refusal', { type: 'done', stopReason: 'refusal' }],
      ['tool-calls', 'tool_use', { type: 'done', stopReason: 'tool_use' }],
      ['other', 'weird', { type: 'done', stopReason: 'other' }],
      ['interrupted', undefined, { type: 'done', stopReason: 'other' }],
      ['other', undefined, { type: 'error', error: { kind: 'network', retryable: true } }],
      ['error', undefined, { type: 'error', error: { kind: 'network', retryable: true } }],
    ];
    const model = mockModel(...cases.map(([unified, raw]) => [finish(unified, raw)]));
    const provider = aiSdk({ model });
    const seen: unknown[] = [];
    for (const _ of cases) {
      const last = plain(await collect(provider)).at(-1) as {
        type: string;
        error?: { kind: string; retryable: boolean };
      };
      seen.push(
        last.error
          ? { type: 'error', error: { kind: last.error.kind, retryable: last.error.retryable } }
          : last,
      );
    }
    expect(seen).toEqual(cases.map(([, , expected]) => expected));
  });

  it('makes every count a whole, non-negative number', async () => {
    const gaps = {
      inputTokens: { total: 12, noCache: undefined, cacheRead: 2.7, cacheWrite: -1 },
      outputTokens: { total: undefined, text: 3, reasoning: 4 },
    };
    const model = mockModel([
      { type: 'finish', usage: gaps, finishReason: { unified: 'stop', raw: 'stop' } },
    ]);
    expect((await collect(aiSdk({ model }))).filter((event) => event.type === 'usage')).toEqual([
      { type: 'usage', usage: { inputTokens: 10, outputTokens: 7, cacheReadTokens: 2, cacheWriteTokens: 0 } },
    ]);
  });

  it('reads a v3 model, and refuses another specification with a clear error', async () => {
    const model = new MockLanguageModelV3({
      doStream: {
        // v3 streams the same parts as v4 for everything here.
        stream: convertArrayToReadableStream(reasoningAndText as LanguageModelV3StreamPart[]),
      },
    });
    const events = collapse(await collect(aiSdk({ model })));
    expect(events.slice(0, 2)).toEqual([
      { type: 'thinking.delta', text: 'Thinking.' },
      { type: 'text.delta', text: 'Answer.' },
    ]);
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' });
    const old = { specificationVersion: 'v2', provider: 'old', modelId: 'm' };
    expect(() => aiSdk({ model: old as never })).toThrow(ConfigError);
    expect(() => aiSdk({ model: old as never })).toThrow(/specification v2/);
  });
});

describe('ai-sdk abort and errors', () => {
  it('ends with aborted when the signal fires mid-stream, even if the model ignores it', async () => {
    const stream = new ReadableStream<LanguageModelV4StreamPart>({
      start(controller) {
        controller.enqueue({ type: 'text-delta', id: 't', delta: 'first' });
        // Never closed: only the adapter's cancel can end the read.
      },
    });
    const provider = aiSdk({ model: new MockLanguageModelV4({ doStream: { stream } }) });
    const events = await collect(provider, sampleRequest, (event, controller) => {
      if (event.type === 'text.delta') controller.abort();
    });
    expect(plain(events)).toEqual([
      { type: 'text.delta', text: 'first' },
      {
        type: 'error',
        error: { kind: 'aborted', retryable: false, retryAfterMs: undefined, status: undefined },
      },
    ]);
  });

  it('sends nothing when the signal has already fired', async () => {
    const model = mockModel([finish('stop', 'stop')]);
    const controller = new AbortController();
    controller.abort();
    const events = [];
    for await (const event of aiSdk({ model }).stream(sampleRequest, controller.signal)) events.push(event);
    expect(events.map((event) => event.type === 'error' && event.error.kind)).toEqual(['aborted']);
    expect(model.doStreamCalls).toHaveLength(0);
  });

  it('classifies HTTP failures, the SDK’s own errors and error parts into agentchart’s kinds', async () => {
    const apiError = (statusCode: number, body: unknown, headers: Record<string, string> = {}) =>
      new APICallError({
        message: 'request failed',
        url: 'http://model.example',
        requestBodyValues: {},
        statusCode,
        responseHeaders: headers,
        responseBody: JSON.stringify(body),
      });
    const quota = { error: { message: 'You exceeded your current quota.', type: 'insufficient_quota' } };
    const thrown: [unknown, object][] = [
      [
        apiError(429, { error: { message: 'slow down' } }, { 'retry-after': '2' }),
        { kind: 'rate_limit', retryAfterMs: 2000 },
      ],
      [
        apiError(429, quota),
        {
          kind: 'quota',
          retryable: false,
          message: '429 insufficient_quota: You exceeded your current quota.',
        },
      ],
      [
        apiError(400, { error: { message: 'prompt is too long: 210000 tokens' } }),
        { kind: 'context_overflow' },
      ],
      [apiError(401, { error: 'bad key' }), { kind: 'auth', retryable: false }],
      [apiError(503, {}), { kind: 'server', retryable: true }],
      [new LoadAPIKeyError({ message: 'API key is missing' }), { kind: 'auth' }],
    ];
    const parts: [unknown, object][] = [
      [
        { type: 'overloaded_error', message: 'Overloaded' },
        { kind: 'overloaded', retryable: true },
      ],
      [new JSONParseError({ text: '{"x', cause: new Error('bad') }), { kind: 'server', retryable: true }],
    ];
    const answers: (() => Promise<LanguageModelV4StreamResult>)[] = [
      ...thrown.map(
        ([error]) =>
          () =>
            Promise.reject(error),
      ),
      ...parts.map(([error]) => async () => ({
        stream: convertArrayToReadableStream<LanguageModelV4StreamPart>([
          { type: 'text-delta', id: 't', delta: 'partial' },
          { type: 'error', error },
          finish('error', undefined),
        ]),
      })),
    ];
    let calls = 0;
    const model = new MockLanguageModelV4({ doStream: () => answers[calls++]!() });
    const provider = aiSdk({ model });
    for (const [, expected] of [...thrown, ...parts]) {
      const last = (await collect(provider)).at(-1);
      expect(last?.type === 'error' ? last.error : last).toMatchObject(expected);
    }
  });
});

describe('ai-sdk over the wire (@ai-sdk/openai-compatible)', () => {
  it('reports a chunk whose counts are not numbers as a malformed stream, keeping the text before it', async () => {
    const server = await startOpenAIChatServer();
    try {
      const compatible = createOpenAICompatible({
        name: 'compatible',
        baseURL: `${server.url}/v1`,
        apiKey: 'test-key',
        includeUsage: true,
      });
      server.reply({ turn: { text: ['Hi'], rawCounts: { input: 3, output: 2, cacheRead: 'many' } } });
      const events = plain(collapse(await collect(aiSdk({ model: compatible.chatModel('gpt-test') }))));
      expect(events).toEqual([
        { type: 'text.delta', text: 'Hi' },
        {
          type: 'error',
          error: { kind: 'server', retryable: true, retryAfterMs: undefined, status: undefined },
        },
      ]);
    } finally {
      await server.close();
    }
  });
});
