// A model server whose error echoes the API key (a proxy that repeats the Authorization header, a local
// server that prints its input): the key is taken out of the error before it reaches the log or a live
// event, whether it was given to the adapter or read from the environment.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createAgentSystem, type LiveEvent, type Provider, ProviderError } from '../../src/index.ts';
import { anthropic } from '../../src/providers/anthropic.ts';
import { openai } from '../../src/providers/openai.ts';
import { startAnthropicServer } from '../support/wire/anthropic-server.ts';
import type { FakeServer } from '../support/wire/fake-server.ts';
import { startOpenAIChatServer } from '../support/wire/openai-chat-server.ts';
import { startOpenAIResponsesServer } from '../support/wire/openai-responses-server.ts';
import type { WireReply } from '../support/wire/reply.ts';

type Server = FakeServer & { reply(reply: WireReply): void };
type Backend = {
  start: () => Promise<Server>;
  provider: (url: string, apiKey?: string) => Provider;
  variable: string;
  /** How this vendor's SDK and error body put the server's message into the logged error. */
  message: (text: string) => string;
};

const backends: Record<string, Backend> = {
  anthropic: {
    start: startAnthropicServer,
    provider: (url, apiKey) =>
      anthropic({ model: 'claude-test', baseURL: url, ...(apiKey ? { apiKey } : {}) }),
    variable: 'ANTHROPIC_API_KEY',
    message: (text) => `401 authentication_error: ${text}`,
  },
  'openai chat completions': {
    start: startOpenAIChatServer,
    provider: (url, apiKey) =>
      openai({ model: 'gpt-test', baseURL: `${url}/v1`, ...(apiKey ? { apiKey } : {}) }),
    variable: 'OPENAI_API_KEY',
    message: (text) => `401 ${text}`,
  },
  'openai responses': {
    start: startOpenAIResponsesServer,
    provider: (url, apiKey) =>
      openai({ model: 'gpt-test', baseURL: `${url}/v1`, api: 'responses', ...(apiKey ? { apiKey } : {}) }),
    variable: 'OPENAI_API_KEY',
    message: (text) => `401 ${text}`,
  },
};

let server: Server | undefined;
afterEach(async () => {
  vi.unstubAllEnvs();
  await server?.close();
  server = undefined;
});

/** Runs one turn against `model`; returns the logged error and everything logged and published, as text. */
async function failedTurn(model: Provider) {
  const system = createAgentSystem({ model, projectInstructions: false });
  const agent = await system.createAgent({ id: 'leak' });
  const live: LiveEvent[] = [];
  const iterator = agent.events();
  const collecting = (async () => {
    for await (const event of iterator) live.push(event);
  })();
  const result = await agent.run('Hello.');
  await system.dispose();
  await collecting;
  const end = agent.log().find((event) => event.type === 'turn.end');
  return {
    reason: result.reason,
    error: (end?.data as { error?: unknown } | undefined)?.error,
    everything: JSON.stringify([agent.log(), live]),
  };
}

describe.each(Object.keys(backends))('a 401 whose body echoes the key: %s', (name) => {
  const backend = backends[name]!;
  const key = 'sk-test-9f8e7d6c5b4a39281706';

  it('takes the key the adapter was given out of the logged and published error', async () => {
    server = await backend.start();
    server.reply({ httpError: { status: 401, message: `Invalid API key: ${key}` } });
    const turn = await failedTurn(backend.provider(server.url, key));
    expect({ ...turn, everything: turn.everything.includes(key) }).toEqual({
      reason: 'model_error',
      error: {
        kind: 'auth',
        status: 401,
        retryable: false,
        message: backend.message('Invalid API key: [redacted]'),
      },
      everything: false,
    });
  });

  it(`takes the key the SDK read from ${backend.variable} out of it`, async () => {
    vi.stubEnv(backend.variable, key);
    server = await backend.start();
    server.reply({ httpError: { status: 401, message: `Bearer ${key} was refused` } });
    const turn = await failedTurn(backend.provider(server.url));
    expect({ ...turn, everything: turn.everything.includes(key) }).toEqual({
      reason: 'model_error',
      error: {
        kind: 'auth',
        status: 401,
        retryable: false,
        message: backend.message('Bearer [redacted] was refused'),
      },
      everything: false,
    });
  });
});

describe('a provider of your own whose error carries a credential from the environment', () => {
  it('takes the values of ANTHROPIC_API_KEY, OPENAI_API_KEY and other *_API_KEY variables out of it', async () => {
    const secrets = {
      ANTHROPIC_API_KEY: 'sk-ant-abcdefgh1234',
      OPENAI_API_KEY: 'sk-abcdefgh5678',
      GROQ_API_KEY: 'gsk_zyxwvut9876',
    };
    for (const [variable, value] of Object.entries(secrets)) vi.stubEnv(variable, value);
    // A value this short is no secret (local servers take any key), and replacing it would garble words.
    vi.stubEnv('MISTRAL_API_KEY', 'short');
    const model: Provider = {
      name: 'custom',
      model: 'custom',
      async *stream() {
        const message = `denied for ${Object.values(secrets).join(', ')} (and "short" stays)`;
        yield { type: 'error', error: new ProviderError({ kind: 'auth', message }) };
      },
    };
    const turn = await failedTurn(model);
    expect({
      ...turn,
      everything: Object.values(secrets).filter((secret) => turn.everything.includes(secret)),
    }).toEqual({
      reason: 'model_error',
      error: {
        kind: 'auth',
        retryable: false,
        message: 'denied for [redacted], [redacted], [redacted] (and "short" stays)',
      },
      everything: [],
    });
  });
});
