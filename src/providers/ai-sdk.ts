// `agentchart/ai-sdk`: any AI SDK language model (the `@ai-sdk/provider` specification, v3 or v4) as an
// agentchart provider, so the providers people already use with the AI SDK (Google, Bedrock, Mistral, Groq,
// Ollama, …) run agents without an adapter of their own. Only types come from `@ai-sdk/provider` (an
// optional peer dependency): the model object brings its own code.
import type {
  JSONSchema7,
  LanguageModelV3,
  LanguageModelV4,
  SharedV4ProviderOptions,
} from '@ai-sdk/provider';
import { type Clock, systemClock } from '../core/clock.ts';
import { ConfigError } from '../errors/config-error.ts';
import {
  type AiSdkCache,
  aiSdkCacheFor,
  aiSdkCacheSetting,
  aiSdkPrices,
  withAnthropicMarks,
  withOpenAIKey,
} from './ai-sdk-cache.ts';
import { classifyAiSdkError } from './ai-sdk-error.ts';
import { parseAiSdkOptions } from './ai-sdk-options.ts';
import { toPrompt, toTools } from './ai-sdk-prompt.ts';
import { AiSdkStreamState, type StreamPart } from './ai-sdk-stream.ts';
import type { AnthropicCacheOption } from './anthropic-cache.ts';
import { outputFormatName } from './output-format.ts';
import { type ModelPrices, parsePrices } from './prices.ts';
import { abortedEvent, finishEvents } from './sse-common.ts';
import type { ModelEvent, ModelRequest, OutputFormat, Provider } from './types.ts';

export type AiSdkOptions = {
  /**
   * The model, as an AI SDK provider package makes it: `google('gemini-2.5-pro')`,
   * `bedrock('anthropic.claude-…')`, `createOpenAICompatible({ … }).chatModel('qwen3')`. It must implement
   * the language model specification v3 (AI SDK 5/6 providers) or v4 (AI SDK 7 providers).
   */
  model: LanguageModelV4 | LanguageModelV3;
  /** Output token cap per request (default 8192). */
  maxTokens?: number;
  /**
   * Sent with every request, keyed by the AI SDK provider's name, for example
   * `{ anthropic: { thinking: { type: 'enabled', budgetTokens: 4000 } } }` or `{ openai: { store: false } }`.
   */
  providerOptions?: SharedV4ProviderOptions;
  /**
   * Prompt caching for the providers that have it: with an Anthropic model, `cacheControl` breakpoints on
   * the tool list, the system message and the newest messages (default `{ ttl: '5m' }`); with an OpenAI
   * model, the session id as `promptCacheKey`. `false` asks for neither.
   */
  cacheControl?: AnthropicCacheOption;
  /**
   * US dollars per million tokens, for the cost estimate. Default: the list prices agentchart knows for an
   * `anthropic.*` or `openai.*` model of the vendor's own packages; none for other providers.
   */
  prices?: ModelPrices | false;
  /** The model's context window in tokens (a positive integer); without it, the runtime's default. */
  contextWindow?: number;
  /** Turns a `retry-after` HTTP date into a delay. */
  clock?: Clock;
};

/**
 * An agentchart provider around an AI SDK language model. The model's own retries do not apply (the AI SDK
 * retries in `streamText`, which is not used): retrying is the step machine's job, and it is logged.
 *
 * What it keeps: text and reasoning stream as deltas; tool calls arrive whole; every piece's provider
 * metadata (reasoning signatures, item ids, thought signatures), calls and results the vendor's server ran,
 * files and custom content are logged as provider parts tagged `ai-sdk/<model.provider>` and go back on the
 * next request as the model's own content; sources and text citations become citations; a tool approval
 * request from the vendor is declined on the next request (nobody can approve what runs over there).
 *
 * It takes no AI SDK tools: the agent's tools (`defineTool`, given to `createAgent`) are what the model is
 * offered. Provider-defined tools (`openai.tools.webSearch()`, code execution) are refused, not dropped:
 * they run on the vendor's servers where no permission check or hook sees them.
 *
 * @example
 * import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
 * import { aiSdk } from 'agentchart/ai-sdk';
 * const ollama = createOpenAICompatible({ name: 'ollama', baseURL: 'http://localhost:11434/v1', includeUsage: true });
 * const model = aiSdk({ model: ollama.chatModel('qwen3:8b'), contextWindow: 40_960 });
 *
 * @throws ConfigError when the model implements another specification, `contextWindow` is not a
 * positive integer, `tools` is given (naming each tool and why), or an option is unknown.
 */
export function aiSdk(given: AiSdkOptions): Provider {
  const options = parseAiSdkOptions(given);
  const model = options.model;
  const version = (model as { specificationVersion?: unknown }).specificationVersion;
  if (version !== 'v3' && version !== 'v4') {
    throw new ConfigError(
      `aiSdk: the model implements specification ${String(version)}; agentchart reads v3 (AI SDK 5 and 6 providers) and v4 (AI SDK 7)`,
    );
  }
  const { contextWindow } = options;
  const context: StreamContext = {
    model,
    version,
    partProvider: `ai-sdk/${model.provider}`,
    maxTokens: options.maxTokens ?? 8192,
    providerOptions: options.providerOptions,
    clock: options.clock ?? systemClock,
    cache: aiSdkCacheFor(model.provider, options.cacheControl),
  };
  const chosen = parsePrices('aiSdk', options.prices);
  const prices = chosen ?? aiSdkPrices(model.provider, model.modelId, context.cache);
  return {
    name: 'ai-sdk',
    model: `${model.provider}/${model.modelId}`,
    ...(contextWindow !== undefined ? { contextWindow } : {}),
    promptCache: aiSdkCacheSetting(context.cache),
    ...(prices ? { prices } : {}),
    stream: (request, signal) => streamModel(context, request, signal),
  };
}

type StreamContext = {
  model: LanguageModelV4 | LanguageModelV3;
  version: 'v3' | 'v4';
  partProvider: string;
  maxTokens: number;
  providerOptions: SharedV4ProviderOptions | undefined;
  clock: Clock;
  cache: AiSdkCache;
};

/** Streams one request. Never throws: failure is the last event. */
async function* streamModel(
  context: StreamContext,
  request: ModelRequest,
  signal: AbortSignal,
): AsyncGenerator<ModelEvent> {
  if (signal.aborted) {
    yield abortedEvent();
    return;
  }
  const classify = (error: unknown) => classifyAiSdkError(error, { signal, clock: context.clock });
  const state = new AiSdkStreamState(context.partProvider, classify);
  let reader: ReadableStreamDefaultReader<StreamPart> | undefined;
  // A model that does not watch its signal would keep the read waiting: cancelling the reader ends it.
  const stopReading = () =>
    reader?.cancel().catch(() => {
      // The stream is being dropped; how its cancel went changes nothing.
    });
  signal.addEventListener('abort', stopReading, { once: true });
  try {
    const { prompt, tools, providerOptions } = cachedCall(context, request);
    const callOptions = {
      prompt,
      maxOutputTokens: context.maxTokens,
      abortSignal: signal,
      ...(tools ? { tools, toolChoice: { type: 'auto' as const } } : {}),
      ...(providerOptions ? { providerOptions } : {}),
      // A typed turn's format: the model's provider asks its vendor for it as it can (or warns it cannot).
      ...(request.output ? { responseFormat: responseFormatOf(request.output) } : {}),
    };
    // v3 and v4 call options agree on everything sent here.
    const { stream } = await (context.model as LanguageModelV4).doStream(callOptions);
    reader = (stream as ReadableStream<StreamPart>).getReader();
    if (signal.aborted) stopReading();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      yield* state.handle(value);
      if (state.failure) {
        yield { type: 'error', error: state.failure };
        return;
      }
    }
  } catch (error) {
    yield { type: 'error', error: classify(error) };
    return;
  } finally {
    signal.removeEventListener('abort', stopReading);
    // Left early (an error part, a consumer that stopped reading): the model's stream is not needed.
    reader?.cancel().catch(() => {
      // Already closed or errored; nothing is left to release.
    });
  }
  if (!signal.aborted) yield* state.finish();
  yield* finishEvents({ signal, stopReason: state.stopReason, usage: state.usage });
}

function responseFormatOf(output: OutputFormat) {
  return { type: 'json' as const, schema: output.schema as JSONSchema7, name: outputFormatName };
}

/** The call's prompt, tools and provider options, with the caching the model's provider reads. */
function cachedCall(context: StreamContext, request: ModelRequest) {
  const prompt = toPrompt(request, context);
  const tools = request.tools.length > 0 ? toTools(request.tools) : undefined;
  const { cache } = context;
  if (cache.kind === 'anthropic') {
    return { ...withAnthropicMarks(prompt, tools, cache.ttl), providerOptions: context.providerOptions };
  }
  const key = cache.kind === 'openai' ? request.cacheKey : undefined;
  return { prompt, tools, providerOptions: withOpenAIKey(context.providerOptions, key) };
}
