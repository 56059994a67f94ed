// The Anthropic Messages stream, folded into provider-neutral model events: content blocks open, grow and
// close by index (a reply may also arrive whole inside `message_start`); tool calls are read when their
// block closes; vendor content (thinking, server tools, citations' raw form, compaction) becomes provider
// parts when the message ends; usage counters are cumulative.
import type { RawMessageStreamEvent, StopReason } from '@anthropic-ai/sdk/resources/messages';
import { finalAnswerTool } from './anthropic-output.ts';
import { parseToolInput, tokenCount } from './sse-common.ts';
import type { Citation, ModelEvent, ModelStopReason, ProviderPart, Usage } from './types.ts';

/** The provider's name, which also tags the parts it emits and takes back on later requests. */
export const providerName = 'anthropic';

/** A content block as the whole message holds it (the vendor's JSON, kept as it came). */
export type ContentBlock = Record<string, unknown> & { type: string };
type OpenBlock = { block: ContentBlock; json: string; textStart: number };

// Blocks the runtime understands on its own; any other block, or a text block with citations, means the
// message must go back block for block, in its order (server tools, `pause_turn`, compaction).
const plainTypes: ReadonlySet<string> = new Set(['text', 'thinking', 'redacted_thinking', 'tool_use']);
// Blocks whose input arrives as JSON deltas (or whole in `content_block_start` when there are none).
const inputTypes: ReadonlySet<string> = new Set(['tool_use', 'server_tool_use', 'mcp_tool_use']);

/**
 * Folds the raw Messages stream into model events, one raw event at a time. With `finalAnswer` (a typed
 * turn asked through the final-answer tool), a call of that tool is the answer: its input becomes the
 * message's text (and its block a text block, should the message go back block for block), not a call.
 */
export class AnthropicStreamState {
  stopReason: ModelStopReason | undefined;
  private answered = false;
  private otherCalls = 0;
  private readonly open = new Map<number, OpenBlock>();
  private readonly content = new Map<number, ContentBlock>();
  private readonly citations: Citation[] = [];
  private counts: Partial<Usage> | undefined;
  private textLength = 0;

  constructor(private readonly options: { finalAnswer?: boolean } = {}) {}

  /** The stop reason, with a turn that stopped only to give its final answer ended as `end_turn`. */
  answeredStopReason(): ModelStopReason | undefined {
    const onlyAnswered = this.answered && this.otherCalls === 0;
    return onlyAnswered && this.stopReason === 'tool_use' ? 'end_turn' : this.stopReason;
  }

  *handle(event: RawMessageStreamEvent): Generator<ModelEvent> {
    switch (event.type) {
      case 'message_start':
        this.addUsage(event.message.usage);
        // A reply can be carried whole here, content and stop reason, with no block events after it.
        for (const [index, block] of (event.message.content ?? []).entries()) {
          yield* this.start(index, block as unknown as ContentBlock);
          yield* this.stop(index);
        }
        if (event.message.stop_reason) this.stopReason = mapStopReason(event.message.stop_reason);
        return;
      case 'content_block_start':
        yield* this.start(event.index, event.content_block as unknown as ContentBlock);
        return;
      case 'content_block_delta':
        yield* this.delta(event.index, event.delta as unknown as Record<string, unknown>);
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

  /** The provider parts and citations of the whole message, once it has ended. */
  *finish(): Generator<ModelEvent> {
    const blocks = [...this.content.entries()].sort(([a], [b]) => a - b).map(([, block]) => block);
    const ordered = blocks.some(
      (block) => !plainTypes.has(block.type) || (block.type === 'text' && hasCitations(block)),
    );
    for (const block of blocks) {
      if (!ordered && block.type !== 'thinking' && block.type !== 'redacted_thinking') continue;
      const part: ProviderPart = { provider: providerName, type: block.type, data: block };
      yield { type: 'provider_part', part };
    }
    for (const citation of this.citations) yield { type: 'citation', citation };
  }

  private *start(index: number, block: ContentBlock): Generator<ModelEvent> {
    const open: OpenBlock = { block: { ...block }, json: '', textStart: this.textLength };
    if (Array.isArray(block.citations)) open.block.citations = [...block.citations];
    this.open.set(index, open);
    if (block.type === 'text' && typeof block.text === 'string') yield* this.text(block.text);
  }

  private *delta(index: number, delta: Record<string, unknown>): Generator<ModelEvent> {
    const open = this.open.get(index);
    if (!open) return;
    const block = open.block;
    if (delta.type === 'text_delta' && typeof delta.text === 'string') {
      block.text = `${typeof block.text === 'string' ? block.text : ''}${delta.text}`;
      yield* this.text(delta.text);
    } else if (delta.type === 'thinking_delta' && typeof delta.thinking === 'string') {
      block.thinking = `${typeof block.thinking === 'string' ? block.thinking : ''}${delta.thinking}`;
      if (delta.thinking !== '') yield { type: 'thinking.delta', text: delta.thinking };
    } else if (delta.type === 'signature_delta' && typeof delta.signature === 'string') {
      block.signature = `${typeof block.signature === 'string' ? block.signature : ''}${delta.signature}`;
    } else if (delta.type === 'input_json_delta' && typeof delta.partial_json === 'string') {
      open.json += delta.partial_json;
    } else if (delta.type === 'citations_delta') {
      block.citations = [...(Array.isArray(block.citations) ? block.citations : []), delta.citation];
    } else if (delta.type === 'compaction_delta' && typeof delta.content === 'string') {
      block.content = `${typeof block.content === 'string' ? block.content : ''}${delta.content}`;
    }
  }

  private *stop(index: number): Generator<ModelEvent> {
    const open = this.open.get(index);
    if (!open) return;
    this.open.delete(index);
    const block = open.block;
    // The input arrives as JSON deltas, or whole in the start event when there are none.
    if (inputTypes.has(block.type) && open.json.trim() !== '') block.input = parseToolInput(open.json);
    if (block.type === 'tool_use' && this.options.finalAnswer && block.name === finalAnswerTool) {
      yield* this.answer(index, block.input ?? {});
      return;
    }
    this.content.set(index, block);
    if (block.type === 'text') this.readCitations(block, open.textStart);
    if (block.type === 'tool_use') {
      this.otherCalls++;
      const input = block.input ?? {};
      yield { type: 'tool_call', call: { id: String(block.id), name: String(block.name), input } };
    }
  }

  /** The final-answer tool's input as the message's text: JSON (a raw string when it was not JSON). */
  private *answer(index: number, input: unknown): Generator<ModelEvent> {
    const text = typeof input === 'string' ? input : JSON.stringify(input);
    this.answered = true;
    this.content.set(index, { type: 'text', text });
    yield* this.text(text);
  }

  private *text(text: string): Generator<ModelEvent> {
    if (text === '') return;
    this.textLength += text.length;
    yield { type: 'text.delta', text };
  }

  private readCitations(block: ContentBlock, start: number): void {
    if (!Array.isArray(block.citations)) return;
    for (const raw of block.citations as Record<string, unknown>[]) {
      this.citations.push({ ...neutralCitation(raw), start, end: this.textLength });
    }
  }

  private addUsage(raw: object | null | undefined) {
    const usage = raw as Record<string, unknown> | null | undefined;
    // With server-side compaction every iteration is billed; the top-level counts are the last one's.
    if (Array.isArray(usage?.iterations)) {
      this.counts = sumIterations(usage.iterations as Record<string, unknown>[]);
      return;
    }
    // Counters are cumulative: a later event replaces an earlier one, it does not add to it. A count
    // that is absent or null was not reported; any other value that is not a count is taken as 0.
    const counts = { ...this.counts };
    for (const [key, name] of usageNames) {
      const value = usage?.[name];
      if (value !== undefined && value !== null) counts[key] = tokenCount(value);
    }
    this.counts = counts;
  }
}

const usageNames = [
  ['inputTokens', 'input_tokens'],
  ['outputTokens', 'output_tokens'],
  ['cacheReadTokens', 'cache_read_input_tokens'],
  ['cacheWriteTokens', 'cache_creation_input_tokens'],
] as const;

function sumIterations(iterations: Record<string, unknown>[]): Usage {
  const total: Usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
  for (const iteration of iterations) {
    for (const [key, name] of usageNames) total[key] += tokenCount(iteration?.[name]);
  }
  return total;
}

function hasCitations(block: ContentBlock): boolean {
  return Array.isArray(block.citations) && block.citations.length > 0;
}

/** Anthropic's citation locations in the runtime's one shape: web results by URL, the rest as documents. */
function neutralCitation(raw: Record<string, unknown>): Citation {
  const citation: Citation =
    raw?.type === 'web_search_result_location' && typeof raw.url === 'string'
      ? { source: 'url', url: raw.url }
      : { source: 'document' };
  const title = raw?.title ?? raw?.document_title;
  if (typeof title === 'string') citation.title = title;
  if (typeof raw?.cited_text === 'string') citation.citedText = raw.cited_text;
  return citation;
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
