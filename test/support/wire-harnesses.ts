// Contract harnesses for the providers that talk to a fake vendor server through the real SDK: the
// provider under test is built by the caller (its own options, an SDK client of another version), the
// server side and what the contract reads of it are the same for every provider of that wire format.
import type { Provider } from '../../src/providers/types.ts';
import type { ProviderHarness } from './provider-contract.ts';
import type { AnthropicServer } from './wire/anthropic-server.ts';
import type { OpenAIChatServer } from './wire/openai-chat-server.ts';
import { type OpenAIResponsesServer, reasoningItem } from './wire/openai-responses-server.ts';

type Server = AnthropicServer | OpenAIChatServer | OpenAIResponsesServer;

/** What every wire harness shares: the server's queue, its request count, and closing it. */
function wire(server: Server, provider: Provider) {
  return {
    provider,
    wire: true,
    reply: server.reply,
    stall: () => server.enqueue({ type: 'stall' }),
    whenRequests: (count: number) => server.whenRequests(count),
    requestCount: () => server.requests.length,
    close: () => server.close(),
  };
}

/** The content blocks of a request's messages (or Responses input items), flattened. */
export function blocksOf(
  body: Record<string, unknown>,
  key: 'messages' | 'input',
): Record<string, unknown>[] {
  const list = (body[key] ?? []) as Record<string, unknown>[];
  return list.flatMap((entry) =>
    Array.isArray(entry.content) ? (entry.content as Record<string, unknown>[]) : [entry],
  );
}

/** Messages API: thinking blocks go back to the vendor as the adapter received them. */
export function anthropicHarness(server: AnthropicServer, provider: Provider): ProviderHarness {
  return {
    ...wire(server, provider),
    sentParts: (index) =>
      blocksOf(server.requests[index]!.body, 'messages').filter(
        (block) => block.type === 'thinking' || block.type === 'redacted_thinking',
      ),
    expectedPart: (thinking) => ({
      provider: 'anthropic',
      type: 'thinking',
      data: { type: 'thinking', thinking: thinking.pieces.join(''), signature: thinking.signature },
    }),
  };
}

/** Chat Completions: no reasoning items to send back. */
export function chatHarness(server: OpenAIChatServer, provider: Provider): ProviderHarness {
  return {
    ...wire(server, provider),
    sentParts: () => [],
    expectedPart: () => {
      throw new Error('Chat Completions has no reasoning items to send back');
    },
  };
}

/** Responses API: encrypted reasoning items go back in the next request's input. */
export function responsesHarness(server: OpenAIResponsesServer, provider: Provider): ProviderHarness {
  return {
    ...wire(server, provider),
    sentParts: (index) =>
      blocksOf(server.requests[index]!.body, 'input').filter((item) => item.type === 'reasoning'),
    expectedPart: (thinking) => ({ provider: 'openai', type: 'reasoning', data: reasoningItem(thinking) }),
  };
}
