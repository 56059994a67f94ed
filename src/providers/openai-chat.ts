import type OpenAI from 'openai';
import type {
  ChatCompletionChunk,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import type { CompletionUsage } from 'openai/resources/completions';
import type { Clock } from '../core/clock.ts';
import { Sources } from './openai-chat-sources.ts';
import { isStrictSchema, outputFormatName } from './output-format.ts';
import { errorEvent, finishEvents, parseToolInput, stringifyToolInput, tokenCount } from './sse-common.ts';
import type {
  ModelEvent,
  ModelMessage,
  ModelRequest,
  ModelStopReason,
  OutputFormat,
  Usage,
} from './types.ts';

/** What the Chat and Responses streamers need from the factory. */
export type OpenAIContext = {
  client: () => OpenAI;
  model: string;
  maxTokens: number;
  maxTokensField: 'max_tokens' | 'max_completion_tokens';
  reasoning:
    | { effort?: 'minimal' | 'low' | 'medium' | 'high'; summary?: 'auto' | 'concise' | 'detailed' }
    | undefined;
  clock: Clock;
  /** The API key in use (given, or read by the SDK), to be taken out of error messages. */
  secrets: () => (string | null | undefined)[];
  cache?: OpenAICache;
};

/** OpenAI's prompt-cache fields: `key` true sends the request's session key, a string that key. */
export type OpenAICache = { key: boolean | string; retention?: 'in_memory' | '24h' };

/** `prompt_cache_key` and `prompt_cache_retention` of one request (Chat and Responses name them alike). */
export function promptCacheFields(
  request: Pick<ModelRequest, 'cacheKey'>,
  cache: OpenAICache | undefined,
): { prompt_cache_key?: string; prompt_cache_retention?: 'in_memory' | '24h' } {
  if (!cache) return {};
  const key = cache.key === true ? request.cacheKey : cache.key === false ? undefined : cache.key;
  return {
    ...(key !== undefined && key !== '' ? { prompt_cache_key: key } : {}),
    ...(cache.retention ? { prompt_cache_retention: cache.retention } : {}),
  };
}

/** Streams one request through Chat Completions. Never throws: failure is the last event. */
export async function* streamChat(
  context: OpenAIContext,
  request: ModelRequest,
  signal: AbortSignal,
): AsyncGenerator<ModelEvent> {
  const state = new ChatStreamState();
  try {
    const params = toChatParams(request, context);
    const chunks = await context.client().chat.completions.create(params, { signal, maxRetries: 0 });
    for await (const chunk of chunks) yield* state.handle(chunk);
  } catch (error) {
    // A vendor that restates the token limit as an error after finishing with `length` has finished
    // (OpenRouter does): the answer is whole, only cut short.
    if (state.stopReason !== 'max_tokens' || signal.aborted) {
      yield errorEvent(error, { signal, clock: context.clock, secrets: context.secrets() });
      return;
    }
  }
  yield* state.citations();
  yield* finishEvents({ signal, stopReason: state.stopReason, usage: state.usage });
}

/** The Chat Completions request for a provider-neutral request. Exported for tests of the mapping. */
export function toChatParams(
  request: ModelRequest,
  context: Pick<OpenAIContext, 'model' | 'maxTokens' | 'maxTokensField' | 'cache'>,
): ChatCompletionCreateParamsStreaming {
  const messages: ChatCompletionMessageParam[] = [];
  if (request.system !== '') messages.push({ role: 'system', content: request.system });
  for (const message of request.messages) {
    const mapped = toChatMessage(message);
    if (mapped) messages.push(mapped);
  }
  return {
    model: context.model,
    messages,
    stream: true,
    stream_options: { include_usage: true },
    [context.maxTokensField]: context.maxTokens,
    ...promptCacheFields(request, context.cache),
    ...(request.tools.length > 0
      ? {
          tools: request.tools.map((tool) => ({
            type: 'function' as const,
            function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
          })),
        }
      : {}),
    ...(request.output ? { response_format: responseFormatOf(request.output) } : {}),
  };
}

/** A typed turn's format as Chat Completions' structured outputs (`response_format`, a JSON Schema). */
function responseFormatOf(output: OutputFormat) {
  const { schema } = output;
  return {
    type: 'json_schema' as const,
    json_schema: { name: outputFormatName, schema, strict: isStrictSchema(schema) },
  };
}

function toChatMessage(message: ModelMessage): ChatCompletionMessageParam | undefined {
  switch (message.role) {
    case 'user':
      return { role: 'user', content: message.content };
    case 'tool':
      // Chat Completions has no error flag on a tool message: the content itself says so.
      return { role: 'tool', tool_call_id: message.callId, content: message.content };
    case 'assistant': {
      if (message.text === '' && message.toolCalls.length === 0) return undefined;
      return {
        role: 'assistant',
        content: message.text === '' ? null : message.text,
        ...(message.toolCalls.length > 0
          ? {
              tool_calls: message.toolCalls.map((call) => ({
                id: call.id,
                type: 'function' as const,
                function: { name: call.name, arguments: stringifyToolInput(call.input) },
              })),
            }
          : {}),
      };
    }
  }
}

type PendingCall = { id: string; name: string; json: string };

// What compatible servers add to the delta: reasoning text (vLLM, Ollama, DeepSeek, Groq), or the content as
// a list of text and thinking parts (Mistral's reasoning models).
type VendorDelta = {
  reasoning_content?: unknown;
  reasoning?: unknown;
  content?: unknown;
  annotations?: unknown;
};
// Perplexity names its sources beside the choices, by URL; the text refers to them as [1], [2], ….
type VendorChunk = { citations?: unknown; search_results?: unknown };

/** Folds Chat Completions chunks into model events; tool-call pieces are accumulated by index. */
class ChatStreamState {
  stopReason: ModelStopReason | undefined;
  usage: Partial<Usage> | undefined;
  private readonly calls = new Map<number, PendingCall>();
  private readonly sources = new Sources();
  private refused = false;
  private textLength = 0;

  *handle(chunk: ChatCompletionChunk): Generator<ModelEvent> {
    if (chunk.usage) this.usage = mapUsage(chunk.usage);
    this.sources.readChunk(chunk as VendorChunk);
    // The usage chunk at the end has `choices: []`.
    const choice = chunk.choices?.[0];
    if (!choice) return;
    const delta = choice.delta ?? {};
    const vendor = delta as VendorDelta;
    const reasoning = vendor.reasoning_content ?? vendor.reasoning;
    if (typeof reasoning === 'string' && reasoning !== '') yield { type: 'thinking.delta', text: reasoning };
    if (typeof vendor.content === 'string') yield* this.text(vendor.content);
    if (Array.isArray(vendor.content)) yield* this.contentParts(vendor.content);
    // A refusal is what the model said instead of an answer: it is the text, and the reason it stopped.
    if (typeof delta.refusal === 'string' && delta.refusal !== '') {
      this.refused = true;
      yield* this.text(delta.refusal);
    }
    this.sources.readAnnotations(vendor.annotations);
    for (const [position, piece] of (delta.tool_calls ?? []).entries()) {
      const index = piece.index ?? position;
      const call = this.calls.get(index) ?? { id: '', name: '', json: '' };
      if (piece.id) call.id = piece.id;
      if (piece.function?.name) call.name += piece.function.name;
      if (piece.function?.arguments) call.json += piece.function.arguments;
      this.calls.set(index, call);
    }
    if (choice.finish_reason) yield* this.finish(choice.finish_reason);
  }

  /** The citations the vendor named, once the text they point into is whole. */
  citations(): ModelEvent[] {
    return this.sources.all(this.textLength).map((citation) => ({ type: 'citation', citation }));
  }

  private *text(text: string): Generator<ModelEvent> {
    if (text === '') return;
    this.textLength += text.length;
    yield { type: 'text.delta', text };
  }

  private *contentParts(parts: unknown[]): Generator<ModelEvent> {
    for (const part of parts as { type?: unknown; text?: unknown; thinking?: unknown }[]) {
      if (part?.type === 'text' && typeof part.text === 'string') yield* this.text(part.text);
      if (part?.type !== 'thinking' || !Array.isArray(part.thinking)) continue;
      for (const inner of part.thinking as { text?: unknown }[]) {
        if (typeof inner?.text === 'string' && inner.text !== '')
          yield { type: 'thinking.delta', text: inner.text };
      }
    }
  }

  private *finish(reason: NonNullable<ChatCompletionChunk.Choice['finish_reason']>): Generator<ModelEvent> {
    const ordered = [...this.calls.entries()].sort(([a], [b]) => a - b);
    this.calls.clear();
    for (const [index, call] of ordered) {
      // Some compatible servers omit the id; the position keeps it unique within the response.
      const id = call.id || `call_${index}`;
      yield { type: 'tool_call', call: { id, name: call.name, input: parseToolInput(call.json) } };
    }
    // Some compatible servers report `stop` even when they asked for tools.
    this.stopReason = this.refused ? 'refusal' : ordered.length > 0 ? 'tool_use' : mapFinishReason(reason);
  }
}

function mapFinishReason(reason: NonNullable<ChatCompletionChunk.Choice['finish_reason']>): ModelStopReason {
  switch (reason) {
    case 'stop':
      return 'end_turn';
    case 'tool_calls':
    case 'function_call':
      return 'tool_use';
    case 'length':
      return 'max_tokens';
    case 'content_filter':
      return 'refusal';
    default:
      return 'other';
  }
}

/** OpenAI counts cached tokens inside `prompt_tokens`; agentchart counts them apart, as Anthropic does. */
export function mapUsage(usage: CompletionUsage): Partial<Usage> {
  // Compatible servers leave counts out (often `prompt_tokens`), so none of them is trusted to be there.
  const cacheReadTokens = tokenCount(usage.prompt_tokens_details?.cached_tokens);
  const cacheWriteTokens = tokenCount(usage.prompt_tokens_details?.cache_write_tokens);
  return {
    inputTokens: Math.max(0, tokenCount(usage.prompt_tokens) - cacheReadTokens - cacheWriteTokens),
    outputTokens: tokenCount(usage.completion_tokens),
    cacheReadTokens,
    cacheWriteTokens,
  };
}
