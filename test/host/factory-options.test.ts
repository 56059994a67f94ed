// Every factory a host calls (models, stores, tools) parses its options where they enter, as a plain
// JavaScript caller sends them: an unknown key is a ConfigError naming it, with the key it was probably
// meant to be, and a value of the wrong type names the option and what it got.
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError, codingTools, defineTool, fileStore, memoryStore, taskTool } from '../../src/index.ts';
import { pgStore } from '../../src/postgres.ts';
import { aiSdk } from '../../src/providers/ai-sdk.ts';
import { anthropic } from '../../src/providers/anthropic.ts';
import { openai } from '../../src/providers/openai.ts';
import { replay, scripted } from '../../src/testing.ts';

/** What a JavaScript caller would pass where the types would stop a TypeScript one. */
const loose = (value: unknown) => value as never;

function refusal(call: () => unknown): string {
  try {
    call();
  } catch (error) {
    if (ConfigError.isInstance(error)) return `ConfigError: ${error.message}`;
    return `not a ConfigError: ${String(error)}`;
  }
  return 'accepted';
}

const aiModel = createOpenAICompatible({ name: 'local', baseURL: 'http://127.0.0.1:9/v1' }).chatModel('m');
const tool = { name: 'echo', description: 'Echo.', access: 'none', input: z.object({}), run: async () => '' };

describe('factories refuse what they do not know', () => {
  const cases: [string, () => unknown, string][] = [
    [
      'openai with baseUrl (a typo of baseURL)',
      () => openai(loose({ model: 'qwen3:8b', baseUrl: 'http://127.0.0.1:11434/v1' })),
      'openai: unknown option "baseUrl" (did you mean "baseURL"?)',
    ],
    [
      'openai without a model',
      () => openai(loose({ apiKey: 'k' })),
      'openai: model must be a non-empty string, got undefined',
    ],
    [
      'openai with no options',
      () => openai(loose(undefined)),
      'openai: options must be an object with a model, got undefined',
    ],
    [
      'openai with an api it does not speak',
      () => openai(loose({ model: 'm', api: 'completions' })),
      'openai: api must be one of "chat", "responses", got "completions"',
    ],
    [
      'openai with a misspelt reasoning key',
      () => openai(loose({ model: 'm', api: 'responses', reasoning: { efort: 'low' } })),
      'openai: reasoning has an unknown key "efort" (did you mean "effort"?)',
    ],
    [
      'openai with maxTokens as text',
      () => openai(loose({ model: 'm', maxTokens: '100' })),
      'openai: maxTokens must be a positive integer, got "100"',
    ],
    [
      'anthropic with max_tokens',
      () => anthropic(loose({ model: 'claude-sonnet-4-5', max_tokens: 100 })),
      'anthropic: unknown option "max_tokens" (did you mean "maxTokens"?)',
    ],
    [
      'anthropic with a misspelt thinking key',
      () => anthropic(loose({ model: 'claude-sonnet-4-5', thinking: { budget: 1000 } })),
      'anthropic: thinking.budgetTokens must be a positive integer, got undefined; thinking has an unknown key "budget"',
    ],
    [
      'aiSdk with maxToken',
      () => aiSdk(loose({ model: aiModel, maxToken: 10 })),
      'aiSdk: unknown option "maxToken" (did you mean "maxTokens"?)',
    ],
    [
      'aiSdk with a clock that is not one',
      () => aiSdk(loose({ model: aiModel, clock: Date })),
      'aiSdk: clock must be a Clock ({ now, setTimer }), got a function',
    ],
    [
      'scripted with a misspelt option',
      () => scripted([], loose({ chunksize: 4 })),
      'scripted: unknown option "chunksize" (did you mean "chunkSize"?)',
    ],
    [
      'scripted with a misspelt step key',
      () => scripted(loose([{ text: 'a' }, { toolcalls: [] }])),
      'scripted: entries[1] has an unknown key "toolcalls" (did you mean "toolCalls"?)',
    ],
    [
      'scripted with no script',
      () => scripted(loose('hi')),
      'scripted: entries must be an array of script steps, got "hi"',
    ],
    [
      'replay with a misspelt option',
      () => replay([], loose({ modle: 'm' })),
      'replay: unknown option "modle" (did you mean "model"?)',
    ],
    [
      'fileStore with a misspelt option',
      () => fileStore('/tmp/sessions', loose({ durabilty: 'fsync' })),
      'fileStore: unknown option "durabilty" (did you mean "durability"?)',
    ],
    [
      'fileStore with a durability it does not have',
      () => fileStore('/tmp/sessions', loose({ durability: 'sync' })),
      'fileStore: durability must be one of "flush", "fsync", got "sync"',
    ],
    [
      'fileStore with options where the folder goes',
      () => fileStore(loose({ dir: '/tmp/sessions' })),
      'fileStore: dir must be the path of a folder (a non-empty string without NUL bytes), got an object',
    ],
    [
      'memoryStore with options',
      () => memoryStore(loose({ dir: '/tmp' })),
      'memoryStore: unknown option "dir"',
    ],
    [
      'pgStore with a misspelt option',
      () => pgStore('postgres://127.0.0.1:9/none', loose({ poolsize: 2 })),
      'pgStore: unknown option "poolsize" (did you mean "poolSize"?)',
    ],
    [
      'pgStore with a misspelt retry key',
      () => pgStore('postgres://127.0.0.1:9/none', loose({ retry: { attempt: 2 } })),
      'pgStore: retry has an unknown key "attempt" (did you mean "attempts"?)',
    ],
    [
      'codingTools with a misspelt tool',
      () => codingTools(loose({ bsah: {} })),
      'codingTools: unknown option "bsah" (did you mean "bash"?)',
    ],
    [
      'defineTool with a misspelt key',
      () => defineTool(loose({ ...tool, concurrencysafe: true })),
      'defineTool("echo"): definition has an unknown key "concurrencysafe" (did you mean "concurrencySafe"?)',
    ],
    [
      'taskTool with a misspelt option',
      () => taskTool(loose({ timeout: 5 })),
      'taskTool: unknown option "timeout" (did you mean "timeoutMs"?)',
    ],
  ];

  it.each(cases)('%s: ConfigError', (_label, call, message) => {
    expect(refusal(call)).toBe(`ConfigError: ${message}`);
  });

  it('takes every documented option, and an option left undefined', () => {
    const made = [
      () =>
        openai({
          model: 'm',
          apiKey: 'k',
          baseURL: 'http://127.0.0.1:9/v1',
          api: 'responses',
          maxTokens: 10,
          reasoning: { effort: 'low', summary: 'auto' },
          contextWindow: 1000,
          apiKey2: undefined,
        } as never),
      () => openai({ model: 'm', maxTokensField: 'max_tokens', apiKey: undefined }),
      () =>
        anthropic({
          model: 'claude-sonnet-4-5',
          maxTokens: 2000,
          thinking: { budgetTokens: 1024 },
          baseURL: undefined,
        }),
      () =>
        scripted([{ text: 'a', toolCalls: [{ name: 'x', input: {} }] }, () => ({ text: 'b' })], {
          chunkSize: 2,
          model: 'x',
        }),
      () => fileStore('/tmp/sessions', { durability: 'fsync' }),
      () => memoryStore(),
      () => taskTool({ timeoutMs: 1000 }),
    ].map(refusal);
    // `apiKey2: undefined` is an unknown key all the same: a typo is refused whatever its value.
    expect(made).toEqual([
      'ConfigError: openai: unknown option "apiKey2" (did you mean "apiKey"?)',
      ...Array.from({ length: 6 }, () => 'accepted'),
    ]);
  });

  it('pgStore takes its documented options (no connection is made)', async () => {
    const store = pgStore('postgres://127.0.0.1:9/none', {
      schema: 'agents',
      migrate: false,
      retry: { attempts: 2, firstDelayMs: 1, maxDelayMs: 2 },
      poolSize: 1,
    });
    expect(store.kind).toBe('postgres');
    await store.close();
  });
});
