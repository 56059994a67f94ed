import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { ProviderErrorKind } from '../../src/errors/provider-error.ts';
import { aiSdk } from '../../src/providers/ai-sdk.ts';
import { anthropic } from '../../src/providers/anthropic.ts';
import { openai } from '../../src/providers/openai.ts';
import { type ScriptStep, scripted } from '../../src/providers/scripted.ts';
import { parseToolInput } from '../../src/providers/sse-common.ts';
import { type ProviderHarness, runProviderContract } from '../support/provider-contract.ts';
import { startAnthropicServer } from '../support/wire/anthropic-server.ts';
import { startOpenAIChatServer } from '../support/wire/openai-chat-server.ts';
import { startOpenAIResponsesServer } from '../support/wire/openai-responses-server.ts';
import type { WireReply } from '../support/wire/reply.ts';
import { anthropicHarness, chatHarness, responsesHarness } from '../support/wire-harnesses.ts';

// Only the OpenAI adapter talks to OpenAI-compatible servers (vLLM, llama.cpp, Ollama, LM Studio).
const vendorOnly = {
  context_overflow_compatible: 'only the OpenAI adapter talks to OpenAI-compatible servers',
} as const;

runProviderContract(
  'anthropic',
  async () => {
    const server = await startAnthropicServer();
    return anthropicHarness(
      server,
      anthropic({ model: 'claude-test', apiKey: 'test-key', baseURL: server.url }),
    );
  },
  vendorOnly,
);

runProviderContract(
  'openai chat completions',
  async () => {
    const server = await startOpenAIChatServer();
    return chatHarness(
      server,
      openai({ model: 'gpt-test', apiKey: 'test-key', baseURL: `${server.url}/v1` }),
    );
  },
  {
    thinking:
      'Chat Completions has no reasoning items to send back; its reasoning deltas are tested in openai-chat.test.ts',
  },
);

runProviderContract('openai responses', async () => {
  const server = await startOpenAIResponsesServer();
  const options = { model: 'gpt-test', apiKey: 'test-key', baseURL: `${server.url}/v1` };
  return responsesHarness(server, openai({ ...options, api: 'responses' }));
});

const statusKinds: Record<number, ProviderErrorKind> = {
  429: 'rate_limit',
  529: 'overloaded',
  500: 'server',
};

/** The scripted provider's answer to a neutral reply: what a script author would write for it. */
function scriptStep(reply: WireReply): ScriptStep {
  if ('overflow' in reply) return { error: { kind: 'context_overflow' } };
  if ('httpError' in reply) {
    const retryAfterMs = reply.httpError.headers?.['retry-after-ms'];
    return {
      error: {
        kind: statusKinds[reply.httpError.status] ?? 'bad_request',
        ...(retryAfterMs ? { retryAfterMs: Number(retryAfterMs) } : {}),
      },
    };
  }
  const turn = reply.turn;
  const usage = turn.usage;
  return {
    ...(turn.text ? { text: turn.text.join('') } : {}),
    ...(turn.toolCalls
      ? {
          toolCalls: turn.toolCalls.map((call) => ({
            id: call.id,
            name: call.name,
            input: parseToolInput(call.argumentPieces.join('')),
          })),
        }
      : {}),
    usage: {
      inputTokens: usage?.input ?? 10,
      outputTokens: usage?.output ?? 5,
      cacheReadTokens: usage?.cacheRead ?? 0,
      cacheWriteTokens: usage?.cacheWrite ?? 0,
    },
    ...(turn.ending === 'error_event' ? { error: { kind: 'server' } } : {}),
    ...(turn.ending === 'overflow_event' ? { error: { kind: 'context_overflow' } } : {}),
  };
}

runProviderContract(
  'scripted',
  async () => {
    const steps: ScriptStep[] = [];
    const provider = scripted(steps);
    return {
      provider,
      wire: false,
      reply: (reply) => {
        steps.push(scriptStep(reply));
      },
      stall: () => {
        throw new Error('the scripted provider has no wire to stall');
      },
      whenRequests: async () => {},
      requestCount: () => provider.requests.length,
      sentParts: () => [],
      expectedPart: () => {
        throw new Error('the scripted provider does not think');
      },
      close: async () => {},
    } satisfies ProviderHarness;
  },
  {
    thinking: 'the scripted provider does not think',
    usage_gaps: 'a script states its usage; there is no server to leave counts out',
    abort_before_response: 'there is no wire: the script answers at once',
    connection_reset: 'there is no wire to reset',
    malformed_stream: 'there is no wire to garble',
    truncated: 'there is no wire to cut',
    context_overflow_compatible: vendorOnly.context_overflow_compatible,
  },
);

// Any AI SDK model through `agentchart/ai-sdk`: here the AI SDK's own OpenAI-compatible provider, talking
// HTTP to the same Chat Completions wire server as the OpenAI adapter.
runProviderContract(
  'ai-sdk (openai-compatible)',
  async () => {
    const server = await startOpenAIChatServer();
    const compatible = createOpenAICompatible({
      name: 'compatible',
      baseURL: `${server.url}/v1`,
      apiKey: 'test-key',
      includeUsage: true,
    });
    return chatHarness(server, aiSdk({ model: compatible.chatModel('gpt-test') }));
  },
  {
    thinking:
      'Chat Completions has no signed reasoning to send back; reasoning and its round trip are tested with the mock model in ai-sdk.test.ts',
    usage:
      '@ai-sdk/openai-compatible 3.0.92 reads no cache-write count from Chat Completions (it counts those tokens as uncached input); all four counts are mapped in ai-sdk.test.ts',
    usage_gaps:
      '@ai-sdk/openai-compatible 3.0.92 validates every chunk and ends the stream with an error on counts that are not numbers; counts out of range are made whole in ai-sdk.test.ts',
  },
);
