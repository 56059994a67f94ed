import type Anthropic from '@anthropic-ai/sdk';
import type { MessageCreateParamsStreaming } from '@anthropic-ai/sdk/resources/messages';
import { z } from 'zod/v4';
import { type Clock, systemClock } from '../core/clock.ts';
import { clockSchema, must, nonEmptyString, parseHostValue, positiveInteger } from '../core/host-schema.ts';
import { ConfigError } from '../errors/config-error.ts';
import { type AnthropicCacheOption, cacheControlSchema, withCacheBreakpoints } from './anthropic-cache.ts';
import { toAnthropicMessages } from './anthropic-messages.ts';
import {
  type SchemaTransform,
  type StructuredOutputs,
  structuredOutputsFor,
  withOutputFormat,
} from './anthropic-output.ts';
import { AnthropicStreamState, providerName } from './anthropic-stream.ts';
import { type ContextWindowTable, knownContextWindow } from './context-windows.ts';
import { loadPeerPackage } from './peer-package.ts';
import { anthropicPrices, type ModelPrices, parsePrices } from './prices.ts';
import { errorEvent, finishEvents } from './sse-common.ts';
import type { ModelEvent, ModelRequest, Provider } from './types.ts';

const [{ default: AnthropicClient }, { transformJSONSchema }] = await loadPeerPackage(
  '@anthropic-ai/sdk',
  () => Promise.all([import('@anthropic-ai/sdk'), import('@anthropic-ai/sdk/lib/transform-json-schema')]),
);

export { type StructuredOutputs, structuredOutputModels } from './anthropic-output.ts';

export type AnthropicOptions = {
  /** For example `claude-sonnet-4-5`. */
  model: string;
  /** Defaults to the SDK's own lookup (`ANTHROPIC_API_KEY`). */
  apiKey?: string;
  /** A proxy or a local fake server; the SDK posts to `${baseURL}/v1/messages`. */
  baseURL?: string;
  /** Output token cap per request (default 8192). Must exceed the thinking budget. */
  maxTokens?: number;
  /** Extended thinking with this token budget; thinking blocks are sent back on later requests. */
  thinking?: { budgetTokens: number };
  /** A ready client (its own retries are not used: every request passes `maxRetries: 0`). */
  client?: Anthropic;
  /** Turns a `retry-after` HTTP date into a delay. */
  clock?: Clock;
  /**
   * The model's context window in tokens, for a model `anthropicContextWindows` does not know (or to
   * use less of it). A positive integer; without it, the known window, else the runtime's default.
   */
  contextWindow?: number;
  /**
   * Prompt-cache breakpoints on the tool list, the system prompt and the newest messages of every
   * request (default `{ ttl: '5m' }`); `{ ttl: '1h' }` keeps the prefix an hour (writing costs more);
   * `false` sends no markers. Recorded in `session.start`.
   */
  cacheControl?: AnthropicCacheOption;
  /** US dollars per million tokens, for the cost estimate; default Anthropic's list prices of known models. */
  prices?: ModelPrices | false;
  /**
   * How a typed run's output is asked for: `'native'`, the API's structured outputs
   * (`output_config.format`), or `'tool'`, a final-answer tool whose input is the answer. Default: native
   * for the models that have structured outputs (`structuredOutputModels`), the tool for the others.
   */
  structuredOutputs?: StructuredOutputs;
};

const text = z.string(must('a string'));

/** What `anthropic` takes, parsed where it enters: an option it does not know is refused, not ignored. */
const optionsSchema = z.strictObject(
  {
    model: nonEmptyString,
    apiKey: text.optional(),
    baseURL: text.optional(),
    maxTokens: positiveInteger.optional(),
    thinking: z.strictObject({ budgetTokens: positiveInteger }, must('an object')).optional(),
    client: z
      .custom<Anthropic>((value) => typeof value === 'object' && value !== null, must('an object'))
      .optional(),
    clock: clockSchema.optional(),
    contextWindow: positiveInteger.optional(),
    cacheControl: cacheControlSchema.optional(),
    // Checked by `parsePrices`, which says what prices are.
    prices: z.unknown().optional(),
    structuredOutputs: z.enum(['native', 'tool'], must('"native" or "tool"')).optional(),
  },
  must('an object with a model'),
);

/**
 * Context windows of Claude models by id prefix. Every current Claude model reads 200,000 tokens; the
 * 1M window of some models needs a beta header this adapter does not send.
 */
export const anthropicContextWindows: ContextWindowTable = [['claude', 200_000]];

/**
 * A provider for the Anthropic Messages API, streaming through `@anthropic-ai/sdk`. SDK retries are off:
 * retrying is the step machine's job, and it is logged.
 *
 * @example
 * const model = anthropic({ model: 'claude-sonnet-4-5' }); // model.contextWindow === 200_000
 *
 * @throws ConfigError when an option is unknown (`anthropic: unknown option "baseUrl" (did you mean
 * "baseURL"?)`) or has a wrong type or range, or the thinking budget is not below `maxTokens`.
 */
export function anthropic(given: AnthropicOptions): Provider {
  const options = parseHostValue('anthropic', optionsSchema, given);
  const contextWindow = options.contextWindow ?? knownContextWindow(anthropicContextWindows, options.model);
  const maxTokens = options.maxTokens ?? 8192;
  const budget = options.thinking?.budgetTokens;
  if (budget !== undefined && budget >= maxTokens) {
    throw new ConfigError(
      `anthropic: thinking.budgetTokens (${budget}) must be below maxTokens (${maxTokens})`,
    );
  }
  const cache = promptCacheOf(options.cacheControl);
  const chosen = parsePrices('anthropic', options.prices);
  const prices = chosen ?? anthropicPrices(options.model, cache === false ? '5m' : cache.ttl);
  const clock = options.clock ?? systemClock;
  let client = options.client;
  // Built lazily so a missing key surfaces as a classified stream error, not a constructor crash.
  const getClient = () => {
    client ??= new AnthropicClient({
      ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
      ...(options.baseURL !== undefined ? { baseURL: options.baseURL } : {}),
      maxRetries: 0,
    });
    return client;
  };

  const outputs = structuredOutputsFor(options.model, options.structuredOutputs);

  async function* stream(request: ModelRequest, signal: AbortSignal): AsyncGenerator<ModelEvent> {
    let state = new AnthropicStreamState();
    try {
      const mapping = { model: options.model, maxTokens, budget, cache, outputs, transform };
      const { params, finalAnswer } = toAnthropicRequest(request, mapping);
      state = new AnthropicStreamState({ finalAnswer });
      const events = await getClient().messages.create(params, { signal, maxRetries: 0 });
      for await (const event of events) yield* state.handle(event);
    } catch (error) {
      // The key the SDK used: given, or read by the SDK from ANTHROPIC_API_KEY / ANTHROPIC_AUTH_TOKEN.
      yield errorEvent(error, {
        signal,
        clock,
        secrets: [options.apiKey, client?.apiKey, client?.authToken],
      });
      return;
    }
    if (!signal.aborted) yield* state.finish();
    yield* finishEvents({ signal, stopReason: state.answeredStopReason(), usage: state.usage() });
  }

  return {
    name: providerName,
    model: options.model,
    ...(contextWindow !== undefined ? { contextWindow } : {}),
    promptCache: cache,
    ...(prices ? { prices } : {}),
    stream,
  };
}

function promptCacheOf(option: AnthropicCacheOption | undefined): false | { ttl: '5m' | '1h' } {
  if (option === undefined) return { ttl: '5m' };
  if (option === false) return false;
  const ttl = option.ttl ?? '5m';
  if (ttl !== '5m' && ttl !== '1h') {
    throw new ConfigError(`anthropic: cacheControl.ttl must be '5m' or '1h', not ${JSON.stringify(ttl)}`);
  }
  return { ttl };
}

const transform = transformJSONSchema as SchemaTransform;

type ParamsOptions = {
  model: string;
  maxTokens: number;
  budget?: number | undefined;
  cache?: false | { ttl?: '5m' | '1h' } | undefined;
  /** How a typed turn's output is asked for (default: the final-answer tool). */
  outputs?: StructuredOutputs;
  transform?: SchemaTransform;
};

/**
 * The request's parameters, and whether a call of the final-answer tool is the answer (a typed turn asked
 * through the tool). Exported for tests of the mapping.
 */
export function toAnthropicRequest(
  request: ModelRequest,
  options: ParamsOptions,
): { params: MessageCreateParamsStreaming; finalAnswer: boolean } {
  if (!request.output) return { params: toAnthropicParams(request, options), finalAnswer: false };
  const how = { mode: options.outputs ?? 'tool', transform: options.transform ?? transform };
  // The format goes in before the cache breakpoints: the final-answer tool is the last tool, marked with them.
  const plain = toAnthropicParams(request, { ...options, cache: false });
  const { params, mode } = withOutputFormat(plain, request.output, how);
  return {
    params: options.cache ? withCacheBreakpoints(params, options.cache) : params,
    finalAnswer: mode === 'tool',
  };
}

/** The Messages API request for a provider-neutral request (its output format aside). Exported for tests. */
export function toAnthropicParams(
  request: ModelRequest,
  options: ParamsOptions,
): MessageCreateParamsStreaming {
  const params: MessageCreateParamsStreaming = {
    model: options.model,
    max_tokens: options.maxTokens,
    stream: true,
    ...(request.system !== '' ? { system: request.system } : {}),
    messages: toAnthropicMessages(request.messages),
    ...(request.tools.length > 0
      ? {
          tools: request.tools.map((tool) => ({
            name: tool.name,
            description: tool.description,
            input_schema: { type: 'object' as const, ...tool.inputSchema },
          })),
        }
      : {}),
    ...(options.budget !== undefined
      ? { thinking: { type: 'enabled' as const, budget_tokens: options.budget } }
      : {}),
  };
  return options.cache ? withCacheBreakpoints(params, options.cache) : params;
}
