// The provider contract again, with clients of the newest SDK majors the peer ranges allow. The repository
// installs the oldest versions the ranges allow as `openai` and `@anthropic-ai/sdk` (contract.test.ts runs
// them) and the newest under aliases: `openai-newest` (openai 7.60.0), `anthropic-sdk-newest`
// (@anthropic-ai/sdk 1.17.0). A host passes its own client (`client` option), which is how an adapter
// meets the SDK version the host installed.
import AnthropicNewest from 'anthropic-sdk-newest';
import { VERSION as anthropicVersion } from 'anthropic-sdk-newest/version';
import OpenAINewest from 'openai-newest';
import { VERSION as openaiVersion } from 'openai-newest/version';
import { describe, expect, it } from 'vitest';
import { anthropic } from '../../src/providers/anthropic.ts';
import { openai } from '../../src/providers/openai.ts';
import { runProviderContract } from '../support/provider-contract.ts';
import { startAnthropicServer } from '../support/wire/anthropic-server.ts';
import { startOpenAIChatServer } from '../support/wire/openai-chat-server.ts';
import { startOpenAIResponsesServer } from '../support/wire/openai-responses-server.ts';
import { anthropicHarness, chatHarness, responsesHarness } from '../support/wire-harnesses.ts';

// The clients are of other versions of the same classes: TypeScript tells such classes apart by their
// private fields, though a host's types would come from its one installed SDK.
type AnthropicClient = NonNullable<Parameters<typeof anthropic>[0]['client']>;
type OpenAIClient = NonNullable<Parameters<typeof openai>[0]['client']>;

describe('the SDK versions under test', () => {
  it('are the newest majors of the peer ranges', () => {
    expect({ openai: openaiVersion, anthropic: anthropicVersion }).toEqual({
      openai: '7.60.0',
      anthropic: '1.17.0',
    });
  });
});

runProviderContract(
  `anthropic, @anthropic-ai/sdk ${anthropicVersion}`,
  async () => {
    const server = await startAnthropicServer();
    const client = new AnthropicNewest({ apiKey: 'test-key', baseURL: server.url });
    return anthropicHarness(
      server,
      anthropic({ model: 'claude-test', client: client as unknown as AnthropicClient }),
    );
  },
  { context_overflow_compatible: 'only the OpenAI adapter talks to OpenAI-compatible servers' },
);

runProviderContract(
  `openai chat completions, openai ${openaiVersion}`,
  async () => {
    const server = await startOpenAIChatServer();
    const client = new OpenAINewest({ apiKey: 'test-key', baseURL: `${server.url}/v1` });
    const options = { model: 'gpt-test', baseURL: `${server.url}/v1` };
    return chatHarness(server, openai({ ...options, client: client as unknown as OpenAIClient }));
  },
  {
    thinking:
      'Chat Completions has no reasoning items to send back; its reasoning deltas are tested in openai-chat.test.ts',
  },
);

runProviderContract(`openai responses, openai ${openaiVersion}`, async () => {
  const server = await startOpenAIResponsesServer();
  const client = new OpenAINewest({ apiKey: 'test-key', baseURL: `${server.url}/v1` });
  const options = { model: 'gpt-test', baseURL: `${server.url}/v1`, api: 'responses' } as const;
  return responsesHarness(server, openai({ ...options, client: client as unknown as OpenAIClient }));
});
