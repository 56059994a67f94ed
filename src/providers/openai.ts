import type OpenAI from 'openai';
import { z } from 'zod/v4';
import { type Clock, systemClock } from '../core/clock.ts';
import {
  clockSchema,
  must,
  nonEmptyString,
  oneOf,
  parseHostValue,
  positiveInteger,
} from '../core/host-schema.ts';
import { type ContextWindowTable, knownContextWindow } from './context-windows.ts';
import { type OpenAICache, type OpenAIContext, streamChat } from './openai-chat.ts';
import { nestBareErrorBodies } from './openai-error-body.ts';
import { streamResponses } from './openai-responses.ts';
import { loadPeerPackage } from './peer-package.ts';
import { type ModelPrices, openaiPrices, parsePrices } from './prices.ts';
import type { ModelEvent, ModelRequest, PromptCacheSetting, Provider } from './types.ts';

const { default: OpenAIClient } = await loadPeerPackage('openai', () => import('openai'));

export type OpenAIOptions = {
  /** For example `gpt-4.1`, or a local model name such as `qwen3:8b` behind `baseURL`. */
  model: string;
  /** Defaults to the SDK's own lookup (`OPENAI_API_KEY`). Local servers accept any string. */
  apiKey?: string;
  /**
   * Any OpenAI-compatible server, including the `/v1` part: Ollama `http://localhost:11434/v1`,
   * vLLM `http://localhost:8000/v1`, llama.cpp `http://localhost:8080/v1`, LM Studio
   * `http://localhost:1234/v1`.
   */
  baseURL?: string;
  /** `chat` (Chat Completions, the default; what compatible servers speak) or `responses`. */
  api?: 'chat' | 'responses';
  /** Output token cap per request (default 8192). */
  maxTokens?: number;
  /**
   * Chat Completions only: the request field for `maxTokens`. Default `max_completion_tokens` for
   * OpenAI itself and `max_tokens` when `baseURL` is set, which older compatible servers understand.
   */
  maxTokensField?: 'max_tokens' | 'max_completion_tokens';
  /**
   * Responses only: reasoning settings for reasoning models. When set, encrypted reasoning items are
   * requested so they can be sent back on the next request (the request is not stored server-side).
   */
  reasoning?: { effort?: 'minimal' | 'low' | 'medium' | 'high'; summary?: 'auto' | 'concise' | 'detailed' };
  /** A ready client (its own retries are not used: every request passes `maxRetries: 0`). */
  client?: OpenAI;
  /** Turns a `retry-after` HTTP date into a delay. */
  clock?: Clock;
  /**
   * The model's context window in tokens. A positive integer; without it, the window of a model
   * `openaiContextWindows` knows when the server is OpenAI's own, else the runtime's default. Set it
   * for a local server: its window is what the server was started with (`num_ctx`, `-c`,
   * `--max-model-len`), not the model's nominal one.
   */
  contextWindow?: number;
  /**
   * `prompt_cache_key`, which routes a session's requests to the same prompt cache: `true` sends the
   * session id, a string sends that key, `false` none. Default: `true` when the server is OpenAI's own,
   * `false` behind another `baseURL` (a compatible server may refuse a field it does not know).
   */
  promptCacheKey?: boolean | string;
  /** `prompt_cache_retention`: how long OpenAI keeps a cached prefix (`24h` or `in_memory`). Not sent by default. */
  promptCacheRetention?: 'in_memory' | '24h';
  /** US dollars per million tokens, for the cost estimate; default OpenAI's list prices, on OpenAI's own server. */
  prices?: ModelPrices | false;
};

const text = z.string(must('a string'));

/** What `openai` takes, parsed where it enters: a JavaScript caller's misspelt `baseUrl` is refused. */
const optionsSchema = z.strictObject(
  {
    model: nonEmptyString,
    apiKey: text.optional(),
    baseURL: text.optional(),
    api: oneOf(['chat', 'responses']).optional(),
    maxTokens: positiveInteger.optional(),
    maxTokensField: oneOf(['max_tokens', 'max_completion_tokens']).optional(),
    reasoning: z
      .strictObject(
        {
          effort: oneOf(['minimal', 'low', 'medium', 'high']).optional(),
          summary: oneOf(['auto', 'concise', 'detailed']).optional(),
        },
        must('an object'),
      )
      .optional(),
    client: z
      .custom<OpenAI>((value) => typeof value === 'object' && value !== null, must('an object'))
      .optional(),
    clock: clockSchema.optional(),
    contextWindow: positiveInteger.optional(),
    promptCacheKey: z.union([z.boolean(), text], must('a boolean or a string')).optional(),
    promptCacheRetention: oneOf(['in_memory', '24h']).optional(),
    // Checked by `parsePrices`, which says what prices are.
    prices: z.unknown().optional(),
  },
  must('an object with a model'),
);

/**
 * Context windows of OpenAI's models by id prefix, as OpenAI documents them. Used only when the adapter
 * talks to OpenAI itself: behind another `baseURL` the same name may run with a smaller window.
 */
export const openaiContextWindows: ContextWindowTable = [
  ['gpt-5.5', 1_050_000],
  ['gpt-5.4', 1_050_000],
  ['gpt-5.2', 400_000],
  ['gpt-5.2-chat', 128_000],
  ['gpt-5.1', 400_000],
  ['gpt-5.1-chat', 128_000],
  ['gpt-5', 400_000],
  ['gpt-5-chat', 128_000],
  ['gpt-4.1', 1_047_576],
  ['gpt-4o', 128_000],
  ['chatgpt-4o', 128_000],
  ['gpt-4-turbo', 128_000],
  ['gpt-4-1106-preview', 128_000],
  ['gpt-4-0125-preview', 128_000],
  ['gpt-4-32k', 32_768],
  ['gpt-4', 8_192],
  ['gpt-3.5-turbo', 16_385],
  ['o1', 200_000],
  ['o1-mini', 128_000],
  ['o1-preview', 128_000],
  ['o3', 200_000],
  ['o4-mini', 200_000],
  ['codex-mini', 200_000],
];

/** Whether `baseURL` is OpenAI's own API (or not set, which means the same). */
function isOpenAIItself(baseURL: string | undefined): boolean {
  if (baseURL === undefined) return true;
  try {
    return new URL(baseURL).hostname === 'api.openai.com';
  } catch {
    // Not a URL the SDK could use either; its requests fail and say so.
    return false;
  }
}

/**
 * A provider for OpenAI and any OpenAI-compatible server, streaming through the `openai` SDK. SDK retries
 * are off: retrying is the step machine's job, and it is logged.
 *
 * @example
 * const cloud = openai({ model: 'gpt-4.1' });
 * const local = openai({
 *   model: 'qwen3:8b', baseURL: 'http://localhost:11434/v1', apiKey: 'ollama', contextWindow: 40_960,
 * });
 *
 * @throws ConfigError when an option is unknown (`openai: unknown option "baseUrl" (did you mean
 * "baseURL"?)`) or has a wrong type or range (`contextWindow` not a positive integer).
 */
export function openai(given: OpenAIOptions): Provider {
  const options = parseHostValue('openai', optionsSchema, given);
  const contextWindow =
    options.contextWindow ??
    (isOpenAIItself(options.baseURL) ? knownContextWindow(openaiContextWindows, options.model) : undefined);
  let client = options.client;
  // Built lazily so a missing key surfaces as a classified stream error, not a constructor crash.
  const getClient = () => {
    client ??= new OpenAIClient({
      ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
      ...(options.baseURL !== undefined ? { baseURL: options.baseURL } : {}),
      maxRetries: 0,
      fetch: nestBareErrorBodies(),
    });
    return client;
  };
  const cache: OpenAICache = {
    key: options.promptCacheKey ?? isOpenAIItself(options.baseURL),
    ...(options.promptCacheRetention ? { retention: options.promptCacheRetention } : {}),
  };
  const context: OpenAIContext = {
    client: getClient,
    model: options.model,
    maxTokens: options.maxTokens ?? 8192,
    maxTokensField: options.maxTokensField ?? (options.baseURL ? 'max_tokens' : 'max_completion_tokens'),
    reasoning: options.reasoning,
    clock: options.clock ?? systemClock,
    // The key the SDK used: given, or read by the SDK from OPENAI_API_KEY.
    secrets: () => [options.apiKey, client?.apiKey],
    cache,
  };
  const api = options.api ?? 'chat';
  const chosen = parsePrices('openai', options.prices);
  // Behind another server the same name may be another model at another price: no guess.
  const prices = chosen ?? (isOpenAIItself(options.baseURL) ? openaiPrices(options.model) : undefined);
  return {
    name: 'openai',
    model: options.model,
    ...(contextWindow !== undefined ? { contextWindow } : {}),
    promptCache: promptCacheSetting(cache),
    ...(prices ? { prices } : {}),
    stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent> {
      return api === 'responses'
        ? streamResponses(context, request, signal)
        : streamChat(context, request, signal);
    },
  };
}

/** What `session.start` records of the cache fields: whose key, and the retention asked for. */
function promptCacheSetting(cache: OpenAICache): PromptCacheSetting {
  if (cache.key === false && !cache.retention) return false;
  const key = cache.key === true ? 'session id' : cache.key === false ? 'none' : 'given';
  return { key, ...(cache.retention ? { retention: cache.retention } : {}) };
}
