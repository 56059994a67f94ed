import type Anthropic from '@anthropic-ai/sdk';
import type {
  ContentBlockParam,
  MessageCreateParamsStreaming,
  MessageParam,
  ToolResultBlockParam,
} from '@anthropic-ai/sdk/resources/messages';
import { z } from 'zod/v4';
import { type Clock, systemClock } from '../core/clock.ts';
import { clockSchema, must, nonEmptyString, parseHostValue, positiveInteger } from '../core/host-schema.ts';
import { ConfigError } from '../errors/config-error.ts';
import { type AnthropicCacheOption, cacheControlSchema, withCacheBreakpoints } from './anthropic-cache.ts';
import { AnthropicStreamState, type ContentBlock, providerName } from './anthropic-stream.ts';
import { type ContextWindowTable, knownContextWindow } from './context-windows.ts';
import { loadPeerPackage } from './peer-package.ts';
import { anthropicPrices, type ModelPrices, parsePrices } from './prices.ts';
import { errorEvent, finishEvents } from './sse-common.ts';
import type { ModelEvent, ModelMessage, ModelRequest, Provider, ProviderPart } from './types.ts';

const { default: AnthropicClient } = await loadPeerPackage(
  '@anthropic-ai/sdk',
  () => import('@anthropic-ai/sdk'),
);

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

  async function* stream(request: ModelRequest, signal: AbortSignal): AsyncGenerator<ModelEvent> {
    const state = new AnthropicStreamState();
    try {
      const params = toAnthropicParams(request, { model: options.model, maxTokens, budget, cache });
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
    yield* finishEvents({ signal, stopReason: state.stopReason, usage: state.usage() });
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

/** The Messages API request for a provider-neutral request. Exported for tests of the mapping. */
export function toAnthropicParams(
  request: ModelRequest,
  options: {
    model: string;
    maxTokens: number;
    budget?: number | undefined;
    cache?: false | { ttl?: '5m' | '1h' } | undefined;
  },
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

function toAnthropicMessages(messages: readonly ModelMessage[]): MessageParam[] {
  const result: MessageParam[] = [];
  for (const message of messages) {
    const previous = result.at(-1);
    if (message.role === 'tool') {
      const block: ToolResultBlockParam = {
        type: 'tool_result',
        tool_use_id: message.callId,
        content: message.content,
        ...(message.isError ? { is_error: true } : {}),
      };
      // Results of one assistant turn travel together in one user message.
      if (
        previous?.role === 'user' &&
        Array.isArray(previous.content) &&
        endsWithToolResult(previous.content)
      ) {
        previous.content.push(block);
      } else {
        result.push({ role: 'user', content: [block] });
      }
    } else if (message.role === 'user') {
      if (previous?.role === 'user' && Array.isArray(previous.content)) {
        previous.content.push({ type: 'text', text: message.content });
      } else {
        result.push({ role: 'user', content: [{ type: 'text', text: message.content }] });
      }
    } else {
      const content = assistantContent(message);
      // The API refuses an empty assistant turn (an interrupted message with nothing in it). A message that
      // continues a paused one (`pause_turn`) joins it: together they are one turn of the assistant.
      if (content.length === 0) continue;
      if (previous?.role === 'assistant' && Array.isArray(previous.content))
        previous.content.push(...content);
      else result.push({ role: 'assistant', content });
    }
  }
  return result;
}

function endsWithToolResult(content: ContentBlockParam[]): boolean {
  return content.at(-1)?.type === 'tool_result';
}

function assistantContent(message: Extract<ModelMessage, { role: 'assistant' }>): ContentBlockParam[] {
  const parts = (message.providerParts ?? []).filter((part) => part.provider === providerName);
  if (parts.some((part) => part.type !== 'thinking' && part.type !== 'redacted_thinking')) {
    return orderedContent(message, parts);
  }
  const content: ContentBlockParam[] = [];
  for (const part of message.providerParts ?? []) {
    // Thinking blocks go back verbatim and first; parts of another vendor mean nothing here.
    if (part.provider === providerName && (part.type === 'thinking' || part.type === 'redacted_thinking')) {
      content.push(part.data as ContentBlockParam);
    }
  }
  if (message.text !== '') content.push({ type: 'text', text: message.text });
  for (const call of message.toolCalls) {
    content.push({ type: 'tool_use', id: call.id, name: call.name, input: objectInput(call.input) });
  }
  return content;
}

/**
 * A message the adapter logged block for block (server tools, citations, compaction): the blocks go back
 * verbatim and in their order, as the API requires to continue after `pause_turn`. Tool calls take their
 * input from the log (what the runtime ran), and empty text blocks, which the API refuses, are left out.
 */
function orderedContent(
  message: Extract<ModelMessage, { role: 'assistant' }>,
  parts: readonly ProviderPart[],
): ContentBlockParam[] {
  const calls = new Map(message.toolCalls.map((call) => [call.id, call]));
  const content: ContentBlockParam[] = [];
  for (const part of parts) {
    const block = part.data as ContentBlock;
    if (block.type === 'text' && block.text === '') continue;
    if (block.type !== 'tool_use') {
      content.push(block as unknown as ContentBlockParam);
      continue;
    }
    const call = calls.get(String(block.id));
    if (!call) continue;
    calls.delete(call.id);
    content.push({ ...block, input: objectInput(call.input) } as unknown as ContentBlockParam);
  }
  for (const call of calls.values()) {
    content.push({ type: 'tool_use', id: call.id, name: call.name, input: objectInput(call.input) });
  }
  return content;
}

function objectInput(input: unknown): object {
  return typeof input === 'object' && input !== null ? input : {};
}
