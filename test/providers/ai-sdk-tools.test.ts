// `aiSdk({ tools })`: AI SDK tools given to the adapter are refused with a ConfigError that names each one
// and says why, instead of being dropped from the request without a word. The tools are the AI SDK's own
// (`gateway.tools.*` and `tool()` from `ai`), the model a real `@ai-sdk/openai-compatible` one.
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { gateway, jsonSchema, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { SimulatedClock } from '../../src/core/clock.ts';
import { ConfigError } from '../../src/errors/config-error.ts';
import { type AiSdkOptions, aiSdk } from '../../src/providers/ai-sdk.ts';

// Never called: every case is refused before a request could be made.
const model = createOpenAICompatible({ name: 'compatible', baseURL: 'http://127.0.0.1:9/v1' }).chatModel('m');

const vendorRunReason =
  "agentchart does not offer tools the vendor runs: their calls run on its servers without agentchart's " +
  'permission check or hooks, and the session log would have to record their arguments (credentials ' +
  'among them) to show what the model was offered. ';
const ownTools = "The agent's tools reach the model from createAgent({ tools }), made with defineTool.";

function refusal(options: object | undefined): ConfigError {
  try {
    aiSdk(options as AiSdkOptions);
  } catch (error) {
    if (ConfigError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('aiSdk accepted the options');
}

describe('aiSdk({ tools })', () => {
  it('refuses provider-defined tools of a tool set, naming each tool and its id', () => {
    const tools = {
      perplexity_search: gateway.tools.perplexitySearch({}),
      parallel_search: gateway.tools.parallelSearch(),
    };
    expect(refusal({ model, tools }).message).toBe(
      'aiSdk: option "tools" is refused: ' +
        '"perplexity_search" (gateway.perplexity_search) is a tool the vendor runs; ' +
        '"parallel_search" (gateway.parallel_search) is a tool the vendor runs. ' +
        vendorRunReason +
        ownTools,
    );
  });

  it('refuses specification tool lists, v4 `provider` and older `provider-defined`, and function tools', () => {
    const tools = [
      { type: 'provider', id: 'openai.web_search', name: 'web_search', args: {} },
      { type: 'provider-defined', id: 'anthropic.code_execution_20250825', name: 'code_execution', args: {} },
      { type: 'function', name: 'read_file', inputSchema: { type: 'object' } },
    ];
    expect(refusal({ model, tools }).message).toBe(
      'aiSdk: option "tools" is refused: ' +
        '"web_search" (openai.web_search) is a tool the vendor runs; ' +
        '"code_execution" (anthropic.code_execution_20250825) is a tool the vendor runs; ' +
        '"read_file" is a function tool. ' +
        vendorRunReason +
        ownTools,
    );
  });

  it('refuses an AI SDK function tool with where agent tools go', () => {
    const read = tool({ description: 'Read a file.', inputSchema: jsonSchema({ type: 'object' }) });
    expect(refusal({ model, tools: { read } }).message).toBe(
      `aiSdk: option "tools" is refused: "read" is a function tool. ${ownTools}`,
    );
  });

  it('refuses an option it does not know instead of ignoring it', () => {
    expect(refusal({ model, temperature: 0, toolChoice: 'auto', maxToken: 5 }).message).toBe(
      'aiSdk: unknown options "temperature", "toolChoice", "maxToken" (did you mean "maxTokens"?)',
    );
  });

  it('refuses options that are no object', () => {
    expect(refusal(undefined as never).message).toBe(
      'aiSdk: the options must be an object with a model, got undefined',
    );
  });

  it('takes every option it documents, and an option left undefined', () => {
    const provider = aiSdk({
      model,
      maxTokens: 100,
      providerOptions: { compatible: {} },
      contextWindow: 8_000,
      clock: new SimulatedClock(),
      ...({ tools: undefined } as object),
    });
    expect(provider).toMatchObject({ name: 'ai-sdk', model: 'compatible.chat/m', contextWindow: 8_000 });
  });
});
