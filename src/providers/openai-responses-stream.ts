// The Responses stream, folded into provider-neutral model events. Output items finish one by one; function
// and custom tool calls become tool calls, messages become text (a blank line between two of them), and the
// items themselves are kept as provider parts when the response ends: reasoning items always, and every
// item, in order, when the order or the items' own fields matter (server tools, several messages, phases,
// citations, MCP approval requests).
//
// One output item is one `output_index`. Items are keyed by that index, never by `item_id`: GitHub Copilot's
// Responses endpoint sends a new `item_id` on every event of one message (the AI SDK correlates them the
// same way), and keying by id read each delta as a new message.
import type {
  ResponseStreamEvent,
  ResponseUsage,
  Response as VendorResponse,
} from 'openai/resources/responses/responses';
import type { ProviderError } from '../errors/provider-error.ts';
import { classifyVendorError } from './classify-error.ts';
import { parseToolInput, tokenCount } from './sse-common.ts';
import type { Citation, ModelEvent, ModelStopReason, ProviderPart, Usage } from './types.ts';

export const providerName = 'openai';

/** An output item as the response holds it (the vendor's JSON, kept as it came). */
export type OutputItem = Record<string, unknown> & { type: string };

const plainTypes: ReadonlySet<string> = new Set(['reasoning', 'message', 'function_call']);

type PendingCall = { callId: string; name: string; json: string };
type ContentPart = { type?: unknown; text?: unknown; refusal?: unknown; annotations?: unknown };

/** Folds Responses stream events into model events. */
export class ResponsesStreamState {
  stopReason: ModelStopReason | undefined;
  usage: Partial<Usage> | undefined;
  failure: ProviderError | undefined;
  private readonly calls = new Map<number, PendingCall>();
  private readonly items = new Map<number, OutputItem>();
  /** Where each message's text begins in the whole text, by output index. */
  private readonly itemStarts = new Map<number, number>();
  private readonly streamed = new Map<number, string>();
  /** The id each item was announced with, by output index. */
  private readonly firstIds = new Map<number, unknown>();
  private readonly citations: Citation[] = [];
  private textLength = 0;
  private sawToolCall = false;
  private refused = false;

  *handle(event: ResponseStreamEvent): Generator<ModelEvent> {
    switch (event.type) {
      case 'response.output_text.delta':
        yield* this.text(event.output_index, event.delta);
        return;
      case 'response.refusal.delta':
        // A refusal is what the model said instead of an answer: it is the text, and why it stopped.
        this.refused = true;
        yield* this.text(event.output_index, event.delta);
        return;
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta':
        yield { type: 'thinking.delta', text: event.delta };
        return;
      case 'response.output_item.added':
        this.itemAdded(event.output_index, event.item as unknown as OutputItem);
        return;
      case 'response.function_call_arguments.delta': {
        const call = this.calls.get(event.output_index);
        if (call) call.json += event.delta;
        return;
      }
      case 'response.output_item.done': {
        const item = this.withFirstId(event.output_index, event.item as unknown as OutputItem);
        this.items.set(event.output_index, item);
        yield* this.itemDone(event.output_index, item);
        return;
      }
      case 'response.completed':
      case 'response.incomplete':
        this.complete(event.response);
        return;
      case 'response.failed':
        this.failure = classifyVendorError(event.response.error?.code, event.response.error?.message);
        return;
      case 'error':
        this.failure = classifyVendorError(event.code ?? undefined, event.message);
        return;
    }
  }

  /** The provider parts and citations of the whole response, once it has ended. */
  *finish(): Generator<ModelEvent> {
    const items = [...this.items.entries()].sort(([a], [b]) => a - b).map(([, item]) => item);
    const messages = items.filter((item) => item.type === 'message');
    const ordered =
      items.some((item) => !plainTypes.has(item.type)) ||
      messages.length > 1 ||
      messages.some((item) => item.phase != null || partsOf(item).some(hasAnnotations));
    for (const item of items) {
      if (!ordered && item.type !== 'reasoning') continue;
      const part: ProviderPart = { provider: providerName, type: item.type, data: item };
      yield { type: 'provider_part', part };
    }
    for (const citation of this.citations) yield { type: 'citation', citation };
  }

  private *text(outputIndex: number, text: string): Generator<ModelEvent> {
    if (text === '') return;
    if (!this.itemStarts.has(outputIndex)) {
      // Each message's text stands apart from the one before it (commentary, then the final answer).
      if (this.textLength > 0) yield* this.emit('\n\n');
      this.itemStarts.set(outputIndex, this.textLength);
    }
    this.streamed.set(outputIndex, (this.streamed.get(outputIndex) ?? '') + text);
    yield* this.emit(text);
  }

  private *emit(text: string): Generator<ModelEvent> {
    this.textLength += text.length;
    yield { type: 'text.delta', text };
  }

  private itemAdded(outputIndex: number, item: OutputItem): void {
    if (item.id !== undefined) this.firstIds.set(outputIndex, item.id);
    if (item.type === 'function_call') {
      const json = typeof item.arguments === 'string' ? item.arguments : '';
      this.calls.set(outputIndex, { callId: String(item.call_id), name: String(item.name), json });
    }
  }

  /**
   * The finished item under the id it was announced with. Only a vendor that rotates ids (Copilot) makes the
   * two differ; the AI SDK keeps the first one too, so that is the id Copilot gets back in later requests.
   */
  private withFirstId(outputIndex: number, item: OutputItem): OutputItem {
    const firstId = this.firstIds.get(outputIndex);
    return firstId === undefined || item.id === firstId ? item : { ...item, id: firstId };
  }

  private *itemDone(outputIndex: number, item: OutputItem): Generator<ModelEvent> {
    if (item.type === 'function_call') {
      const pending = this.calls.get(outputIndex);
      // The finished item carries the whole argument text; the deltas are the fallback.
      const json = (typeof item.arguments === 'string' && item.arguments) || pending?.json || '';
      this.sawToolCall = true;
      const call = { id: String(item.call_id), name: String(item.name), input: parseToolInput(json) };
      yield { type: 'tool_call', call };
    } else if (item.type === 'custom_tool_call') {
      // A call to a free-form tool: its input is text, not JSON arguments.
      this.sawToolCall = true;
      yield {
        type: 'tool_call',
        call: { id: String(item.call_id), name: String(item.name), input: item.input },
      };
    } else if (item.type === 'message') {
      // The finished message holds the whole text; what the deltas left out (a proxy that drops some)
      // still reaches the log, so the text always matches the item that goes back to the vendor.
      const whole = partsOf(item).map(partText).join('');
      const streamed = this.streamed.get(outputIndex) ?? '';
      if (whole.startsWith(streamed)) yield* this.text(outputIndex, whole.slice(streamed.length));
      this.readCitations(outputIndex, item);
    }
  }

  private readCitations(outputIndex: number, item: OutputItem): void {
    let offset = this.itemStarts.get(outputIndex);
    if (offset === undefined) return;
    for (const part of partsOf(item)) {
      for (const annotation of Array.isArray(part.annotations) ? part.annotations : []) {
        const citation = citationOf(annotation as Record<string, unknown>, offset);
        if (citation) this.citations.push(citation);
      }
      offset += partText(part).length;
    }
  }

  private complete(response: VendorResponse) {
    if (response.usage) this.usage = mapResponsesUsage(response.usage);
    const reason = response.incomplete_details?.reason;
    const awaitingApproval = [...this.items.values()].some((item) => item.type === 'mcp_approval_request');
    if (reason === 'max_output_tokens') this.stopReason = 'max_tokens';
    else if (reason === 'content_filter' || this.refused) this.stopReason = 'refusal';
    else if (response.status === 'incomplete') this.stopReason = 'other';
    else if (this.sawToolCall) this.stopReason = 'tool_use';
    // The server waits for an answer to its approval request: the next request carries it (declined).
    else if (awaitingApproval) this.stopReason = 'pause_turn';
    else this.stopReason = 'end_turn';
  }
}

function partsOf(item: OutputItem): ContentPart[] {
  return Array.isArray(item.content) ? (item.content as ContentPart[]) : [];
}

function partText(part: ContentPart): string {
  if (typeof part.text === 'string') return part.text;
  return typeof part.refusal === 'string' ? part.refusal : '';
}

function hasAnnotations(part: ContentPart): boolean {
  return Array.isArray(part.annotations) && part.annotations.length > 0;
}

/** URL and file citations in the runtime's one shape; offsets move from the part into the whole text. */
function citationOf(raw: Record<string, unknown>, offset: number): Citation | undefined {
  if (raw?.type === 'url_citation' && typeof raw.url === 'string') {
    const citation: Citation = { source: 'url', url: raw.url };
    if (typeof raw.title === 'string') citation.title = raw.title;
    return {
      ...citation,
      start: offset + tokenCount(raw.start_index),
      end: offset + tokenCount(raw.end_index),
    };
  }
  if (
    (raw?.type !== 'file_citation' && raw?.type !== 'container_file_citation') ||
    typeof raw.file_id !== 'string'
  ) {
    return undefined;
  }
  const citation: Citation = { source: 'file', fileId: raw.file_id };
  if (typeof raw.filename === 'string') citation.title = raw.filename;
  // A file citation marks a point in the text (`index`); a container file citation a span.
  const start = offset + tokenCount(raw.type === 'file_citation' ? raw.index : raw.start_index);
  const end = raw.type === 'file_citation' ? start : offset + tokenCount(raw.end_index);
  return { ...citation, start, end };
}

/** Cached tokens are part of `input_tokens` at OpenAI; agentchart counts them apart, as Anthropic does. */
function mapResponsesUsage(usage: ResponseUsage): Partial<Usage> {
  const cacheReadTokens = tokenCount(usage.input_tokens_details?.cached_tokens);
  const cacheWriteTokens = tokenCount(usage.input_tokens_details?.cache_write_tokens);
  return {
    inputTokens: Math.max(0, tokenCount(usage.input_tokens) - cacheReadTokens - cacheWriteTokens),
    outputTokens: tokenCount(usage.output_tokens),
    cacheReadTokens,
    cacheWriteTokens,
  };
}
