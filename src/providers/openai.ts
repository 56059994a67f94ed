import OpenAI from 'openai';
import { type Clock, systemClock } from '../core/clock.ts';
import { type OpenAIContext, streamChat } from './openai-chat.ts';
import { streamResponses } from './openai-responses.ts';
import type { ModelEvent, ModelRequest, Provider } from './types.ts';

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
};

/**
 * A provider for OpenAI and any OpenAI-compatible server, streaming through the `openai` SDK. SDK retries
 * are off: retrying is the step machine's job, and it is logged.
 *
 * @example
 * const cloud = openai({ model: 'gpt-4.1' });
 * const local = openai({ model: 'qwen3:8b', baseURL: 'http://localhost:11434/v1', apiKey: 'ollama' });
 */
export function openai(options: OpenAIOptions): Provider {
  let client = options.client;
  // Built lazily so a missing key surfaces as a classified stream error, not a constructor crash.
  const getClient = () => {
    client ??= new OpenAI({
      ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
      ...(options.baseURL !== undefined ? { baseURL: options.baseURL } : {}),
      maxRetries: 0,
    });
    return client;
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
  };
  const api = options.api ?? 'chat';
  return {
    name: 'openai',
    model: options.model,
    stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent> {
      return api === 'responses'
        ? streamResponses(context, request, signal)
        : streamChat(context, request, signal);
    },
  };
}
