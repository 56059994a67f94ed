// Prompt caching on the wire: the requests each adapter sends, captured by a local server that speaks the
// vendor's format, field by field. Anthropic gets at most four breakpoints and none on a thinking block;
// OpenAI gets the session's `prompt_cache_key`; `cacheControl: false` sends nothing.
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors/config-error.ts';
import { aiSdk } from '../../src/providers/ai-sdk.ts';
import { aiSdkCacheFor, withOpenAIKey } from '../../src/providers/ai-sdk-cache.ts';
import { anthropic } from '../../src/providers/anthropic.ts';
import { openai } from '../../src/providers/openai.ts';
import type { ModelRequest } from '../../src/providers/types.ts';
import { collect } from '../support/provider-stream.ts';
import { type AnthropicServer, startAnthropicServer } from '../support/wire/anthropic-server.ts';
import { sampleConversation } from '../support/wire/conversation.ts';
import { type OpenAIChatServer, startOpenAIChatServer } from '../support/wire/openai-chat-server.ts';
import {
  type OpenAIResponsesServer,
  startOpenAIResponsesServer,
} from '../support/wire/openai-responses-server.ts';

const thinking = {
  provider: 'anthropic',
  type: 'thinking',
  data: { type: 'thinking', thinking: 'Plan.', signature: 'sig' },
};
const ephemeral = { type: 'ephemeral', ttl: '5m' };

type Block = Record<string, unknown>;
type Sent = { tools?: Block[]; system?: unknown; messages: { role: string; content: Block[] }[] };

/** Every block of a sent request that carries a marker, named by where it is. */
function markers(body: Sent): string[] {
  const found: string[] = [];
  const note = (block: Block, where: string) => {
    if (block.cache_control) found.push(where);
  };
  for (const [index, tool] of (body.tools ?? []).entries()) note(tool, `tools[${index}]`);
  if (Array.isArray(body.system)) {
    for (const [index, block] of (body.system as Block[]).entries()) note(block, `system[${index}]`);
  }
  for (const [at, message] of body.messages.entries()) {
    for (const [index, block] of message.content.entries()) {
      note(block, `messages[${at}].${String(block.type)}[${index}]`);
    }
  }
  return found;
}

describe('anthropic breakpoints', () => {
  let server: AnthropicServer;
  beforeEach(async () => {
    server = await startAnthropicServer();
  });
  afterEach(() => server.close());
  const provider = (options: Partial<Parameters<typeof anthropic>[0]> = {}) =>
    anthropic({ model: 'claude-test', apiKey: 'k', baseURL: server.url, ...options });

  it('mark the last tool, the system prompt, the newest message and the end of the previous request', async () => {
    server.reply({ turn: { text: ['ok'] } });
    await collect(provider(), sampleConversation([thinking]));
    const body = server.requests[0]!.body as Sent;
    expect(body.tools?.at(-1)).toEqual({
      name: 'list_dir',
      description: 'List a folder.',
      input_schema: { type: 'object', properties: {} },
      cache_control: ephemeral,
    });
    expect(body.system).toEqual([
      { type: 'text', text: 'You are a careful coding agent.', cache_control: ephemeral },
    ]);
    expect(markers(body)).toEqual(['tools[1]', 'system[0]', 'messages[0].text[0]', 'messages[2].text[2]']);
    // The thinking block goes back exactly as the log holds it, unmarked.
    expect(body.messages[1]!.content[0]).toEqual(thinking.data);
  });

  it('never mark a thinking block: a message that ends in one is marked on its last other block, or not at all', async () => {
    const request: ModelRequest = {
      system: '',
      tools: [],
      messages: [
        { role: 'user', content: 'Go on.' },
        { role: 'assistant', text: '', toolCalls: [], providerParts: [thinking] },
      ],
    };
    server.reply({ turn: { text: ['ok'] } });
    await collect(provider({ cacheControl: { ttl: '1h' } }), request);
    const body = server.requests[0]!.body as Sent;
    expect(markers(body)).toEqual(['messages[0].text[0]']);
    expect(body.messages[0]!.content[0]!.cache_control).toEqual({ type: 'ephemeral', ttl: '1h' });
    expect(body.messages[1]!.content).toEqual([thinking.data]);
  });

  it('never send more than four, however long the conversation', async () => {
    const long = sampleConversation();
    const messages = [...long.messages];
    for (let turn = 0; turn < 20; turn++) {
      messages.push({ role: 'assistant', text: `answer ${turn}`, toolCalls: [] });
      messages.push({ role: 'user', content: `question ${turn}` });
    }
    server.reply({ turn: { text: ['ok'] } });
    await collect(provider(), { ...long, messages });
    const found = markers(server.requests[0]!.body as Sent);
    expect(found).toHaveLength(4);
    expect(found.slice(2)).toEqual(['messages[40].text[0]', 'messages[42].text[0]']);
  });

  it('cacheControl: false sends none and says so; a ttl it does not know is a ConfigError', async () => {
    const off = provider({ cacheControl: false });
    expect(off.promptCache).toBe(false);
    expect(provider().promptCache).toEqual({ ttl: '5m' });
    server.reply({ turn: { text: ['ok'] } });
    await collect(off, sampleConversation([thinking]));
    const body = server.requests[0]!.body as Sent;
    expect(markers(body)).toEqual([]);
    expect(body.system).toBe('You are a careful coding agent.');
    expect(() => provider({ cacheControl: { ttl: '10m' as '5m' } })).toThrow(ConfigError);
  });
});

describe('openai prompt_cache_key', () => {
  let chat: OpenAIChatServer;
  let responses: OpenAIResponsesServer;
  beforeEach(async () => {
    [chat, responses] = await Promise.all([startOpenAIChatServer(), startOpenAIResponsesServer()]);
  });
  afterEach(() => Promise.all([chat.close(), responses.close()]));
  const keyed: ModelRequest = { ...sampleConversation(), cacheKey: 'session-1' };

  it('sends the session id on both APIs when asked, with the retention, and nothing by default off OpenAI', async () => {
    for (const [server, api] of [
      [chat, 'chat'],
      [responses, 'responses'],
    ] as const) {
      server.reply({ turn: { text: ['ok'] } });
      server.reply({ turn: { text: ['ok'] } });
      server.reply({ turn: { text: ['ok'] } });
      const base = { model: 'gpt-test', apiKey: 'k', baseURL: server.url, api };
      await collect(openai({ ...base, promptCacheKey: true, promptCacheRetention: '24h' }), keyed);
      await collect(openai({ ...base, promptCacheKey: 'team-cache' }), keyed);
      await collect(openai(base), keyed);
      const bodies = server.requests.map((request) => request.body as Record<string, unknown>);
      expect(bodies.map((body) => [body.prompt_cache_key, body.prompt_cache_retention])).toEqual([
        ['session-1', '24h'],
        ['team-cache', undefined],
        [undefined, undefined],
      ]);
    }
  });

  it("says what it sends: the session id by default on OpenAI's own server, none behind another", () => {
    expect(openai({ model: 'gpt-4.1' }).promptCache).toEqual({ key: 'session id' });
    expect(openai({ model: 'm', baseURL: 'http://localhost:8000/v1' }).promptCache).toBe(false);
    expect(
      openai({ model: 'm', promptCacheKey: 'k', promptCacheRetention: 'in_memory' }).promptCache,
    ).toEqual({
      key: 'given',
      retention: 'in_memory',
    });
  });
});

describe('aiSdk prompt caching', () => {
  let server: AnthropicServer;
  beforeEach(async () => {
    server = await startAnthropicServer();
  });
  afterEach(() => server.close());

  it("puts Anthropic's cacheControl where the Anthropic adapter puts its breakpoints (@ai-sdk/anthropic on the wire)", async () => {
    const vendor = createAnthropic({ apiKey: 'k', baseURL: `${server.url}/v1` });
    const provider = aiSdk({ model: vendor('claude-test') });
    expect(provider.promptCache).toEqual({ ttl: '5m' });
    server.reply({ turn: { text: ['ok'] } });
    await collect(provider, sampleConversation());
    const body = server.requests[0]!.body as Sent;
    expect(markers(body)).toEqual(['tools[1]', 'system[0]', 'messages[0].text[0]', 'messages[2].text[2]']);
    expect(body.tools?.[1]?.cache_control).toEqual(ephemeral);
  });

  it('sends none with cacheControl: false, and none to a provider that has no such option', async () => {
    const vendor = createAnthropic({ apiKey: 'k', baseURL: `${server.url}/v1` });
    const off = aiSdk({ model: vendor('claude-test'), cacheControl: false });
    expect(off.promptCache).toBe(false);
    server.reply({ turn: { text: ['ok'] } });
    await collect(off, sampleConversation());
    expect(markers(server.requests[0]!.body as Sent)).toEqual([]);
    const compatible = createOpenAICompatible({ name: 'local', baseURL: 'http://127.0.0.1:9/v1' });
    expect(aiSdk({ model: compatible.chatModel('m') }).promptCache).toBe(false);
  });

  it("gives an OpenAI model the session id as promptCacheKey, and the host's own options win", () => {
    expect(withOpenAIKey(undefined, 'session-1')).toEqual({ openai: { promptCacheKey: 'session-1' } });
    expect(withOpenAIKey({ openai: { promptCacheKey: 'mine', store: false } }, 'session-1')).toEqual({
      openai: { promptCacheKey: 'mine', store: false },
    });
    expect(aiSdkCacheFor('openai.responses', undefined)).toEqual({ kind: 'openai' });
    expect(aiSdkCacheFor('anthropic.messages', { ttl: '1h' })).toEqual({ kind: 'anthropic', ttl: '1h' });
  });
});
