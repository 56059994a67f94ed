import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openai } from '../../src/providers/openai.ts';
import { collect, plain } from '../support/provider-stream.ts';
import { loadRecordedFixtures, replayAction } from '../support/recorded/fixtures.ts';
import { sampleConversation } from '../support/wire/conversation.ts';
import { sse } from '../support/wire/fake-server.ts';
import {
  type OpenAIResponsesServer,
  startOpenAIResponsesServer,
} from '../support/wire/openai-responses-server.ts';

let server: OpenAIResponsesServer;
beforeEach(async () => {
  server = await startOpenAIResponsesServer();
});
afterEach(async () => {
  await server.close();
});

const provider = (extra: Partial<Parameters<typeof openai>[0]> = {}) =>
  openai({ model: 'gpt-test', apiKey: 'test-key', baseURL: `${server.url}/v1`, api: 'responses', ...extra });

const reasoning = { id: 'rs_1', type: 'reasoning', summary: [], encrypted_content: 'enc' };

describe('openai responses request', () => {
  it('projects the conversation, reasoning items and tools onto one stateless Responses request', async () => {
    server.reply({ turn: { text: ['ok'] } });
    const parts = [
      { provider: 'openai', type: 'reasoning', data: reasoning },
      { provider: 'anthropic', type: 'thinking', data: {} },
    ];
    await collect(
      provider({ maxTokens: 777, reasoning: { effort: 'low', summary: 'auto' } }),
      sampleConversation(parts),
    );
    const [sent] = server.requests;
    expect(sent?.path).toBe('/v1/responses');
    expect(sent?.headers['x-stainless-retry-count']).toBe('0');
    expect(sent?.body).toEqual({
      model: 'gpt-test',
      stream: true,
      store: false,
      instructions: 'You are a careful coding agent.',
      max_output_tokens: 777,
      reasoning: { effort: 'low', summary: 'auto' },
      include: ['reasoning.encrypted_content'],
      tools: [
        {
          type: 'function',
          name: 'read_file',
          description: 'Read a file.',
          parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
          strict: false,
        },
        {
          type: 'function',
          name: 'list_dir',
          description: 'List a folder.',
          parameters: { type: 'object', properties: {} },
          strict: false,
        },
      ],
      input: [
        { role: 'user', content: 'Read a.ts please.' },
        reasoning,
        { role: 'assistant', content: 'Reading it.' },
        { type: 'function_call', call_id: 'call_1', name: 'read_file', arguments: '{"path":"a.ts"}' },
        { type: 'function_call', call_id: 'call_2', name: 'list_dir', arguments: '{"path": ' },
        { type: 'function_call_output', call_id: 'call_1', output: 'export {}' },
        { type: 'function_call_output', call_id: 'call_2', output: 'invalid JSON arguments' },
        { role: 'user', content: 'Thanks. Now summarise.' },
      ],
    });
  });
});

describe('openai responses stream', () => {
  it('maps an incomplete response (max_output_tokens) to max_tokens', async () => {
    server.reply({ turn: { text: ['cut'], stop: 'max_tokens' } });
    expect((await collect(provider())).at(-1)).toEqual({ type: 'done', stopReason: 'max_tokens' });
  });

  it('classifies a failed response by its error code', async () => {
    const failed = (code: string) =>
      sse(
        {
          type: 'response.failed',
          sequence_number: 1,
          response: {
            id: 'r',
            object: 'response',
            status: 'failed',
            output: [],
            error: { code, message: `fake ${code}` },
          },
        },
        'response.failed',
      );
    for (const code of ['rate_limit_exceeded', 'server_error', 'invalid_prompt']) {
      server.enqueue({ type: 'sse', ending: 'end', messages: [failed(code)] });
    }
    const events = [
      ...(await collect(provider())),
      ...(await collect(provider())),
      ...(await collect(provider())),
    ];
    expect(plain(events)).toEqual([
      {
        type: 'error',
        error: { kind: 'rate_limit', retryable: true, retryAfterMs: undefined, status: undefined },
      },
      {
        type: 'error',
        error: { kind: 'server', retryable: true, retryAfterMs: undefined, status: undefined },
      },
      {
        type: 'error',
        error: { kind: 'bad_request', retryable: false, retryAfterMs: undefined, status: undefined },
      },
    ]);
  });

  it('reports a recorded insufficient_quota as quota, not retried, in the vendor’s own words', async () => {
    const fixture = loadRecordedFixtures().find(
      (entry) => entry.name === 'openai-responses/insufficient-quota.jsonl',
    )!;
    server.enqueue(replayAction(fixture.responses[0]!));
    const last = (await collect(provider())).at(-1);
    expect(last?.type === 'error' && last.error).toMatchObject({ kind: 'quota', retryable: false });
    expect(last?.type === 'error' && last.error.message).toMatch(
      /^You exceeded your current quota, please check/,
    );
  });
});
