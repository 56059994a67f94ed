import type {
  CacheControlEphemeral,
  ContentBlockParam,
  MessageCreateParamsStreaming,
  MessageParam,
  TextBlockParam,
  ToolUnion,
} from '@anthropic-ai/sdk/resources/messages';
import { z } from 'zod/v4';
import { must } from '../core/host-schema.ts';

/** The lifetimes Anthropic's prompt cache offers; `5m` is the API's default and costs less to write. */
export type CacheTtl = '5m' | '1h';

/**
 * How the Anthropic adapter marks cache breakpoints: `false` sends none, otherwise every request marks
 * the tool list, the system prompt and the newest messages, with this lifetime.
 */
export type AnthropicCacheOption = false | { ttl?: CacheTtl };

/** `cacheControl` as a JavaScript caller may pass it to `anthropic` or `aiSdk`: checked where it enters. */
export const cacheControlSchema = z.union(
  [z.literal(false), z.strictObject({ ttl: z.enum(['5m', '1h']).optional() })],
  must("false or { ttl?: '5m' | '1h' }"),
);

/** The API refuses a request with more than four `cache_control` markers. */
export const maxBreakpoints = 4;

// Blocks the API refuses a marker on: thinking blocks are cached with the message they belong to.
const unmarkable = new Set(['thinking', 'redacted_thinking']);

/**
 * Marks a request's cache breakpoints, in the order the API reads the prompt (tools, system, messages):
 *
 * - the last tool definition, so the whole tool list is one cached prefix;
 * - the system prompt;
 * - the last block of the newest message, which writes this request's prefix for the next one;
 * - the last block of the newest user message before it, the end of the previous request, which is
 *   where this request reads what the previous one wrote (a step appends an assistant message and a
 *   user message of tool results).
 *
 * At most four, never on a thinking block. Returns a new request: the blocks it marks are copies, since
 * the unmarked ones may be the log's own objects (provider parts sent back verbatim).
 */
export function withCacheBreakpoints(
  params: MessageCreateParamsStreaming,
  cache: { ttl?: CacheTtl },
): MessageCreateParamsStreaming {
  const marker: CacheControlEphemeral = { type: 'ephemeral', ...(cache.ttl ? { ttl: cache.ttl } : {}) };
  const result: MessageCreateParamsStreaming = { ...params };
  let left = maxBreakpoints;
  const tools = params.tools;
  if (tools && tools.length > 0) {
    result.tools = [...tools.slice(0, -1), { ...(tools.at(-1) as ToolUnion), cache_control: marker }];
    left--;
  }
  if (typeof params.system === 'string' && params.system !== '') {
    const system: TextBlockParam = { type: 'text', text: params.system, cache_control: marker };
    result.system = [system];
    left--;
  }
  const messages = [...params.messages];
  for (const index of messageBreakpoints(messages).slice(0, Math.max(0, left))) {
    const marked = markLastBlock(messages[index] as MessageParam, marker);
    if (marked) messages[index] = marked;
  }
  result.messages = messages;
  return result;
}

/** The newest message, then the newest user message before it: where this request writes and reads. */
function messageBreakpoints(messages: readonly MessageParam[]): number[] {
  const last = messages.length - 1;
  if (last < 0) return [];
  for (let index = last - 1; index >= 0; index--) {
    if (messages[index]?.role === 'user') return [last, index];
  }
  return [last];
}

/** The message with a marker on its last block that can carry one, or undefined when none can. */
function markLastBlock(message: MessageParam, marker: CacheControlEphemeral): MessageParam | undefined {
  if (typeof message.content === 'string') {
    if (message.content === '') return undefined;
    return { ...message, content: [{ type: 'text', text: message.content, cache_control: marker }] };
  }
  const content = [...message.content];
  for (let index = content.length - 1; index >= 0; index--) {
    const block = content[index] as ContentBlockParam;
    if (unmarkable.has(block.type) || (block.type === 'text' && block.text === '')) continue;
    content[index] = { ...block, cache_control: marker } as ContentBlockParam;
    return { ...message, content } as MessageParam;
  }
  return undefined;
}
