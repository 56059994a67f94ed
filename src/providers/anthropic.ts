import Anthropic from '@anthropic-ai/sdk';
import type {
  ContentBlockParam,
  MessageCreateParamsStreaming,
  MessageParam,
  RawMessageStreamEvent,
  StopReason,
  ToolResultBlockParam,
} from '@anthropic-ai/sdk/resources/messages';
import { type Clock, systemClock } from '../core/clock.ts';
import { ConfigError } from '../errors/config-error.ts';
import { errorEvent, finishEvents, parseToolInput, tokenCount } from './sse-common.ts';
import type {
  ModelEvent,
  ModelMessage,
  ModelRequest,
  ModelStopReason,
  Provider,
  ProviderPart,
  Usage,
} from './types.ts';

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
};

const providerName = 'anthropic';

/**
 * A provider for the Anthropic Messages API, streaming through `@anthropic-ai/sdk`. SDK retries are off:
 * retrying is the step machine's job, and it is logged.
 *
 * @example
 * const model = anthropic({ model: 'claude-sonnet-4-5' });
 */
export function anthropic(options: AnthropicOptions): Provider {
  const maxTokens = options.maxTokens ?? 8192;
  const budget = options.thinking?.budgetTokens;
  if (budget !== undefined && budget >= maxTokens) {
    throw new ConfigError(
      `anthropic: thinking.budgetTokens (${budget}) must be below maxTokens (${maxTokens})`,
    );
  }
  const clock = options.clock ?? systemClock;
  let client = options.client;
  // Built lazily so a missing key surfaces as a classified stream error, not a constructor crash.
  const getClient = () => {
    client ??= new Anthropic({
      ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
      ...(options.baseURL !== undefined ? { baseURL: options.baseURL } : {}),
      maxRetries: 0,
    });
    return client;
  };

  async function* stream(request: ModelRequest, signal: AbortSignal): AsyncGenerator<ModelEvent> {
    const state = new AnthropicStreamState();
    try {
      const params = toAnthropicParams(request, { model: options.model, maxTokens, budget });
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
    yield* finishEvents({ signal, stopReason: state.stopReason, usage: state.usage() });
  }

  return { name: providerName, model: options.model, stream };
}

/** The Messages API request for a provider-neutral request. Exported for tests of the mapping. */
export function toAnthropicParams(
  request: ModelRequest,
  options: { model: string; maxTokens: number; budget?: number | undefined },
): MessageCreateParamsStreaming {
  return {
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
      // The API refuses an empty assistant turn (an interrupted message with nothing in it).
      if (content.length > 0) result.push({ role: 'assistant', content });
    }
  }
  return result;
}

function endsWithToolResult(content: ContentBlockParam[]): boolean {
  return content.at(-1)?.type === 'tool_result';
}

function assistantContent(message: Extract<ModelMessage, { role: 'assistant' }>): ContentBlockParam[] {
  const content: ContentBlockParam[] = [];
  for (const part of message.providerParts ?? []) {
    // Thinking blocks go back verbatim and first; parts of another vendor mean nothing here.
    if (part.provider === providerName && (part.type === 'thinking' || part.type === 'redacted_thinking')) {
      content.push(part.data as ContentBlockParam);
    }
  }
  if (message.text !== '') content.push({ type: 'text', text: message.text });
  for (const call of message.toolCalls) {
    const input = typeof call.input === 'object' && call.input !== null ? call.input : {};
    content.push({ type: 'tool_use', id: call.id, name: call.name, input });
  }
  return content;
}

type OpenBlock =
  | { type: 'tool_use'; id: string; name: string; json: string }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'other' };

/** Folds the raw Messages stream into model events. */
class AnthropicStreamState {
  stopReason: ModelStopReason | undefined;
  private readonly blocks = new Map<number, OpenBlock>();
  private counts: Partial<Usage> | undefined;

  *handle(event: RawMessageStreamEvent): Generator<ModelEvent> {
    switch (event.type) {
      case 'message_start':
        this.addUsage(event.message.usage);
        return;
      case 'content_block_start':
        yield* this.start(event.index, event.content_block);
        return;
      case 'content_block_delta':
        yield* this.delta(event.index, event.delta);
        return;
      case 'content_block_stop':
        yield* this.stop(event.index);
        return;
      case 'message_delta':
        this.addUsage(event.usage);
        if (event.delta.stop_reason) this.stopReason = mapStopReason(event.delta.stop_reason);
        return;
      case 'message_stop':
        return;
    }
  }

  usage(): Partial<Usage> | undefined {
    return this.counts;
  }

  private *start(
    index: number,
    block: Extract<RawMessageStreamEvent, { type: 'content_block_start' }>['content_block'],
  ) {
    if (block.type === 'text') {
      if (block.text !== '') yield { type: 'text.delta', text: block.text } satisfies ModelEvent;
      this.blocks.set(index, { type: 'other' });
    } else if (block.type === 'tool_use') {
      this.blocks.set(index, { type: 'tool_use', id: block.id, name: block.name, json: '' });
    } else if (block.type === 'thinking') {
      this.blocks.set(index, { type: 'thinking', thinking: block.thinking, signature: block.signature });
    } else if (block.type === 'redacted_thinking') {
      this.blocks.set(index, { type: 'redacted_thinking', data: block.data });
    } else {
      this.blocks.set(index, { type: 'other' });
    }
  }

  private *delta(
    index: number,
    delta: Extract<RawMessageStreamEvent, { type: 'content_block_delta' }>['delta'],
  ) {
    const block = this.blocks.get(index);
    if (delta.type === 'text_delta') {
      yield { type: 'text.delta', text: delta.text } satisfies ModelEvent;
    } else if (delta.type === 'input_json_delta' && block?.type === 'tool_use') {
      block.json += delta.partial_json;
    } else if (delta.type === 'thinking_delta' && block?.type === 'thinking') {
      block.thinking += delta.thinking;
      yield { type: 'thinking.delta', text: delta.thinking } satisfies ModelEvent;
    } else if (delta.type === 'signature_delta' && block?.type === 'thinking') {
      block.signature += delta.signature;
    }
  }

  private *stop(index: number): Generator<ModelEvent> {
    const block = this.blocks.get(index);
    this.blocks.delete(index);
    if (block?.type === 'tool_use') {
      yield {
        type: 'tool_call',
        call: { id: block.id, name: block.name, input: parseToolInput(block.json) },
      };
    } else if (block?.type === 'thinking') {
      const data = { type: 'thinking', thinking: block.thinking, signature: block.signature };
      yield { type: 'provider_part', part: { provider: providerName, type: 'thinking', data } };
    } else if (block?.type === 'redacted_thinking') {
      const part: ProviderPart = {
        provider: providerName,
        type: 'redacted_thinking',
        data: { type: 'redacted_thinking', data: block.data },
      };
      yield { type: 'provider_part', part };
    }
  }

  private addUsage(usage: {
    input_tokens?: unknown;
    output_tokens?: unknown;
    cache_read_input_tokens?: unknown;
    cache_creation_input_tokens?: unknown;
  }) {
    // Counters are cumulative: a later event replaces an earlier one, it does not add to it. A count
    // that is absent or null was not reported; any other value that is not a count is taken as 0.
    const counts = { ...this.counts };
    const reported = (value: unknown) => value !== undefined && value !== null;
    if (reported(usage.input_tokens)) counts.inputTokens = tokenCount(usage.input_tokens);
    if (reported(usage.output_tokens)) counts.outputTokens = tokenCount(usage.output_tokens);
    if (reported(usage.cache_read_input_tokens))
      counts.cacheReadTokens = tokenCount(usage.cache_read_input_tokens);
    if (reported(usage.cache_creation_input_tokens)) {
      counts.cacheWriteTokens = tokenCount(usage.cache_creation_input_tokens);
    }
    this.counts = counts;
  }
}

function mapStopReason(reason: StopReason): ModelStopReason {
  switch (reason) {
    case 'end_turn':
    case 'tool_use':
    case 'max_tokens':
    case 'stop_sequence':
    case 'refusal':
    case 'pause_turn':
      return reason;
    case 'model_context_window_exceeded':
      // The output was cut off by the window, which the turn treats like hitting the token cap.
      return 'max_tokens';
    default:
      return 'other';
  }
}
