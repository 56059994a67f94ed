// The Anthropic Messages stream, folded into provider-neutral model events: content blocks open, grow
// and close by index; thinking comes back as provider parts; usage counters are cumulative.
import type { RawMessageStreamEvent, StopReason } from '@anthropic-ai/sdk/resources/messages';
import { parseToolInput, tokenCount } from './sse-common.ts';
import type { ModelEvent, ModelStopReason, ProviderPart, Usage } from './types.ts';

/** The provider's name, which also tags the parts it emits and takes back on later requests. */
export const providerName = 'anthropic';

type OpenBlock =
  | { type: 'tool_use'; id: string; name: string; json: string }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'other' };

/** Folds the raw Messages stream into model events, one raw event at a time. */
export class AnthropicStreamState {
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
