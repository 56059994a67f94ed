import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openai } from '../../src/providers/openai.ts';
import { collapse, collect, plain } from '../support/provider-stream.ts';
import { sampleConversation } from '../support/wire/conversation.ts';
import { type OpenAIChatServer, startOpenAIChatServer } from '../support/wire/openai-chat-server.ts';

let server: OpenAIChatServer;
beforeEach(async () => {
  server = await startOpenAIChatServer();
});
afterEach(async () => {
  await server.close();
});

const provider = (extra: Partial<Parameters<typeof openai>[0]> = {}) =>
  openai({ model: 'gpt-test', apiKey: 'test-key', baseURL: `${server.url}/v1`, ...extra });

describe('openai chat request', () => {
  it('projects the conversation, tools and limits onto one Chat Completions request', async () => {
    server.reply({ turn: { text: ['ok'] } });
    await collect(provider({ maxTokens: 1234 }), sampleConversation());
    const [sent] = server.requests;
    expect(sent?.path).toBe('/v1/chat/completions');
    expect(sent?.headers.authorization).toBe('Bearer test-key');
    expect(sent?.headers['x-stainless-retry-count']).toBe('0');
    expect(sent?.body).toEqual({
      model: 'gpt-test',
      stream: true,
      stream_options: { include_usage: true },
      // A baseURL means a compatible server, which understands the older field.
      max_tokens: 1234,
      tools: [
        {
          type: 'function',
          function: {
            name: 'read_file',
            description: 'Read a file.',
            parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
          },
        },
        {
          type: 'function',
          function: {
            name: 'list_dir',
            description: 'List a folder.',
            parameters: { type: 'object', properties: {} },
          },
        },
      ],
      messages: [
        { role: 'system', content: 'You are a careful coding agent.' },
        { role: 'user', content: 'Read a.ts please.' },
        {
          role: 'assistant',
          content: 'Reading it.',
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.ts"}' } },
            // Unparseable arguments go back exactly as the model wrote them.
            { id: 'call_2', type: 'function', function: { name: 'list_dir', arguments: '{"path": ' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'export {}' },
        { role: 'tool', tool_call_id: 'call_2', content: 'invalid JSON arguments' },
        { role: 'user', content: 'Thanks. Now summarise.' },
      ],
    });
  });

  it('uses max_completion_tokens when asked to', async () => {
    server.reply({ turn: { text: ['ok'] } });
    await collect(provider({ maxTokens: 99, maxTokensField: 'max_completion_tokens' }));
    expect(server.requests[0]?.body.max_completion_tokens).toBe(99);
    expect(server.requests[0]?.body.max_tokens).toBe(undefined);
  });
});

describe('openai chat stream', () => {
  it('turns reasoning_content from compatible servers into thinking deltas', async () => {
    server.reply({ turn: { thinking: { pieces: ['Hm', 'm.'], signature: '' }, text: ['Yes.'] } });
    expect(collapse(await collect(provider()))).toEqual([
      { type: 'thinking.delta', text: 'Hmm.' },
      { type: 'text.delta', text: 'Yes.' },
      { type: 'usage', usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 } },
      { type: 'done', stopReason: 'end_turn' },
    ]);
  });

  it('maps finish_reason length to max_tokens', async () => {
    server.reply({ turn: { text: ['cut'], stop: 'max_tokens' } });
    expect((await collect(provider())).at(-1)).toEqual({ type: 'done', stopReason: 'max_tokens' });
  });

  it('classifies auth, exhausted quota and context overflow', async () => {
    server.reply({ httpError: { status: 401, message: 'Incorrect API key provided' } });
    server.reply({
      httpError: { status: 429, message: 'You exceeded your quota', errorType: 'insufficient_quota' },
    });
    server.reply({
      httpError: { status: 400, message: "This model's maximum context length is 128000 tokens." },
    });
    const events = [
      ...(await collect(provider())),
      ...(await collect(provider())),
      ...(await collect(provider())),
    ];
    expect(plain(events)).toEqual([
      { type: 'error', error: { kind: 'auth', retryable: false, retryAfterMs: undefined, status: 401 } },
      {
        type: 'error',
        error: { kind: 'quota', retryable: false, retryAfterMs: undefined, status: 429 },
      },
      {
        type: 'error',
        error: { kind: 'context_overflow', retryable: false, retryAfterMs: undefined, status: 400 },
      },
    ]);
  });
});
