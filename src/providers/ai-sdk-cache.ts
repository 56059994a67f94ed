// Prompt caching through an AI SDK model, in the provider options its provider package reads: Anthropic's
// `cacheControl` on the tool list, the system message and the newest messages (the breakpoints the
// Anthropic adapter places), OpenAI's `promptCacheKey` on the request. Other providers get nothing: an
// option their package does not know is ignored at best.
import type {
  LanguageModelV4FunctionTool,
  LanguageModelV4Prompt,
  SharedV4ProviderOptions,
} from '@ai-sdk/provider';
import type { AnthropicCacheOption, CacheTtl } from './anthropic-cache.ts';
import { anthropicPrices, type ModelPrices, openaiPrices } from './prices.ts';
import type { PromptCacheSetting } from './types.ts';

/** What caching `aiSdk` asks of a model's provider: Anthropic breakpoints, an OpenAI key, or nothing. */
export type AiSdkCache = { kind: 'anthropic'; ttl: CacheTtl } | { kind: 'openai' } | { kind: 'none' };

/**
 * The caching a model's provider supports, by the AI SDK provider id (`anthropic.messages`,
 * `openai.responses`, `openai.chat`); `option: false` turns it off.
 */
export function aiSdkCacheFor(provider: string, option: AnthropicCacheOption | undefined): AiSdkCache {
  if (option === false) return { kind: 'none' };
  const family = provider.split('.')[0];
  if (family === 'anthropic') return { kind: 'anthropic', ttl: option?.ttl ?? '5m' };
  if (family === 'openai') return { kind: 'openai' };
  return { kind: 'none' };
}

/** The list prices of a model of Anthropic's or OpenAI's own AI SDK package, when agentchart knows them. */
export function aiSdkPrices(provider: string, modelId: string, cache: AiSdkCache): ModelPrices | undefined {
  const family = provider.split('.')[0];
  if (family === 'anthropic') return anthropicPrices(modelId, cache.kind === 'anthropic' ? cache.ttl : '5m');
  return family === 'openai' ? openaiPrices(modelId) : undefined;
}

/** What `session.start` records of it. */
export function aiSdkCacheSetting(cache: AiSdkCache): PromptCacheSetting {
  if (cache.kind === 'anthropic') return { ttl: cache.ttl };
  return cache.kind === 'openai' ? { key: 'session id' } : false;
}

/**
 * The prompt and tools with Anthropic's breakpoints: the last tool, the system message and the two
 * newest user or tool messages (four at most). Marked entries are copies.
 */
export function withAnthropicMarks(
  prompt: LanguageModelV4Prompt,
  tools: LanguageModelV4FunctionTool[] | undefined,
  ttl: CacheTtl,
): { prompt: LanguageModelV4Prompt; tools: LanguageModelV4FunctionTool[] | undefined } {
  const marked = [...prompt];
  const mark = (options: SharedV4ProviderOptions | undefined): SharedV4ProviderOptions => ({
    ...options,
    anthropic: { ...options?.anthropic, cacheControl: { type: 'ephemeral', ttl } },
  });
  const markAt = (index: number) => {
    const message = marked[index];
    if (message) marked[index] = { ...message, providerOptions: mark(message.providerOptions) };
  };
  const system = marked.findIndex((message) => message.role === 'system');
  if (system >= 0) markAt(system);
  // The newest user or tool message writes this request's prefix. The previous request ended at the
  // newest one before the assistant's reply: user and tool messages in a row are one Anthropic message.
  const isAsking = (index: number) => marked[index]?.role === 'user' || marked[index]?.role === 'tool';
  let index = marked.length - 1;
  while (index > system && !isAsking(index)) index--;
  if (index > system) {
    markAt(index);
    while (index > system && isAsking(index)) index--;
    while (index > system && !isAsking(index)) index--;
    if (index > system) markAt(index);
  }
  const lastTool = tools?.at(-1);
  const markedTools =
    tools && lastTool
      ? [...tools.slice(0, -1), { ...lastTool, providerOptions: mark(lastTool.providerOptions) }]
      : tools;
  return { prompt: marked, tools: markedTools };
}

/** The request's provider options with OpenAI's `promptCacheKey` (the host's own options win). */
export function withOpenAIKey(
  options: SharedV4ProviderOptions | undefined,
  key: string | undefined,
): SharedV4ProviderOptions | undefined {
  if (key === undefined || key === '') return options;
  return { ...options, openai: { promptCacheKey: key, ...options?.openai } };
}
