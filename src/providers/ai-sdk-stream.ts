// The stream of an AI SDK language model (specification v3 or v4), folded into provider-neutral model events.
// Text and reasoning stream as deltas; a tool call arrives whole (`tool-call`, its input a JSON string);
// calls the model's own server ran (`providerExecuted`), their results, files, custom content and approval
// requests are kept, with every piece's provider metadata, as provider parts when the response ends, so the
// next request can send them back as the model's own content.
import type {
  LanguageModelV3StreamPart,
  LanguageModelV4Citation,
  LanguageModelV4Source,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
} from '@ai-sdk/provider';
import type { ProviderError } from '../errors/provider-error.ts';
import { parseToolInput, tokenCount } from './sse-common.ts';
import type { Citation, ModelEvent, ModelStopReason, ProviderPart, Usage } from './types.ts';

export type StreamPart = LanguageModelV4StreamPart | LanguageModelV3StreamPart;
type Metadata = Record<string, unknown> | undefined;

/**
 * One piece of the assistant's content as the AI SDK prompt holds it (`LanguageModelV4Prompt` assistant
 * parts), kept JSON-safe for the log: provider metadata becomes the part's `providerOptions`, which is how
 * the AI SDK itself sends signatures and item ids back. An approval request is not prompt content: it is
 * answered (declined) on the next request.
 */
export type KeptContent = Record<string, unknown> & {
  type: 'text' | 'reasoning' | 'tool-call' | 'tool-result' | 'file' | 'custom' | 'tool-approval-request';
};

type OpenPiece = { type: 'text' | 'reasoning'; text: string; metadata: Metadata; textStart: number };

/** Folds AI SDK stream parts into model events, one part at a time. */
export class AiSdkStreamState {
  stopReason: ModelStopReason | undefined;
  usage: Partial<Usage> | undefined;
  failure: ProviderError | undefined;
  private readonly open = new Map<string, OpenPiece>();
  private readonly content: KeptContent[] = [];
  private readonly citations: Citation[] = [];
  private readonly sources: LanguageModelV4Source[] = [];
  private readonly citedSources = new Set<string>();
  private textLength = 0;
  private runnableCalls = 0;

  constructor(
    private readonly partProvider: string,
    private readonly classify: (error: unknown) => ProviderError,
  ) {}

  *handle(part: StreamPart): Generator<ModelEvent> {
    switch (part.type) {
      case 'text-start':
      case 'reasoning-start': {
        const type = part.type === 'text-start' ? 'text' : 'reasoning';
        this.open.set(`${type}:${part.id}`, {
          type,
          text: '',
          metadata: part.providerMetadata,
          textStart: this.textLength,
        });
        return;
      }
      case 'text-delta':
        yield* this.textDelta(this.piece('text', part.id, part.providerMetadata), part.delta);
        return;
      case 'reasoning-delta': {
        const piece = this.piece('reasoning', part.id, part.providerMetadata);
        piece.text += part.delta;
        if (part.delta !== '') yield { type: 'thinking.delta', text: part.delta };
        return;
      }
      case 'text-end':
      case 'reasoning-end':
        this.end(part.type === 'text-end' ? 'text' : 'reasoning', part);
        return;
      case 'tool-call':
        yield* this.toolCall(part);
        return;
      case 'tool-result':
        this.content.push(keep({ type: 'tool-result', ...resultOf(part) }, part.providerMetadata));
        return;
      case 'tool-approval-request':
        this.content.push({
          type: 'tool-approval-request',
          approvalId: part.approvalId,
          toolCallId: part.toolCallId,
        });
        return;
      case 'file':
        this.content.push(
          keep(
            { type: 'file', mediaType: part.mediaType, data: jsonFileData(part.data) },
            part.providerMetadata,
          ),
        );
        return;
      case 'source':
        this.sources.push(part as LanguageModelV4Source);
        return;
      case 'finish':
        this.usage = mapUsage(part.usage);
        this.stopReason = this.stopOf(part.finishReason);
        return;
      case 'error':
        this.failure = this.classify(part.error);
        return;
      default:
        // `custom` content (v4) goes back as it came; stream-start, response-metadata, tool-input-* (the
        // call arrives whole in `tool-call`), ping and raw chunks carry nothing the log needs.
        if (part.type === 'custom')
          this.content.push(keep({ type: 'custom', kind: part.kind }, part.providerMetadata));
    }
  }

  /** The provider parts and citations of the whole response, once it has ended. */
  *finish(): Generator<ModelEvent> {
    // Reasoning is always kept (with its signature). Text and tool calls rebuild from the log alone unless a
    // piece carries metadata the vendor wants back (item ids, thought signatures) or the response holds
    // content the runtime does not run: then every piece goes back, in order.
    const ordered = this.content.some(
      (piece) =>
        (piece.type !== 'reasoning' && piece.providerOptions !== undefined) ||
        !['text', 'reasoning', 'tool-call'].includes(piece.type),
    );
    for (const piece of this.content) {
      if (!ordered && piece.type !== 'reasoning') continue;
      yield {
        type: 'provider_part',
        part: { provider: this.partProvider, type: piece.type, data: piece } satisfies ProviderPart,
      };
    }
    yield* this.citations.map((citation): ModelEvent => ({ type: 'citation', citation }));
    for (const source of this.sources) {
      if (!this.citedSources.has(source.id)) yield { type: 'citation', citation: neutralSource(source) };
    }
  }

  private piece(type: 'text' | 'reasoning', id: string, metadata: Metadata): OpenPiece {
    const key = `${type}:${id}`;
    let piece = this.open.get(key);
    // A model that skips the start part still streams: the piece opens at its first delta.
    if (!piece) {
      piece = { type, text: '', metadata, textStart: this.textLength };
      this.open.set(key, piece);
    } else if (metadata) {
      piece.metadata = { ...piece.metadata, ...metadata };
    }
    return piece;
  }

  private *textDelta(piece: OpenPiece, delta: string): Generator<ModelEvent> {
    if (delta === '') return;
    piece.text += delta;
    this.textLength += delta.length;
    yield { type: 'text.delta', text: delta };
  }

  private end(
    type: 'text' | 'reasoning',
    part: { id: string; providerMetadata?: Metadata; citations?: LanguageModelV4Citation[] },
  ): void {
    const piece = this.piece(type, part.id, part.providerMetadata);
    this.open.delete(`${type}:${part.id}`);
    this.content.push(keep({ type, text: piece.text }, piece.metadata));
    for (const citation of part.citations ?? []) {
      this.citedSources.add(citation.source.id);
      const cited: Citation = { ...neutralSource(citation.source) };
      if (citation.citedText !== undefined) cited.citedText = citation.citedText;
      if (citation.startIndex !== undefined) cited.start = piece.textStart + tokenCount(citation.startIndex);
      if (citation.endIndex !== undefined) cited.end = piece.textStart + tokenCount(citation.endIndex);
      this.citations.push(cited);
    }
  }

  private *toolCall(part: Extract<StreamPart, { type: 'tool-call' }>): Generator<ModelEvent> {
    const input = parseToolInput(part.input);
    const kept = keep(
      { type: 'tool-call', toolCallId: part.toolCallId, toolName: part.toolName, input },
      part.providerMetadata,
    );
    // A call the vendor's server ran (web search, code execution) is its content, not the runtime's to run.
    if (part.providerExecuted) {
      this.content.push({ ...kept, providerExecuted: true });
      return;
    }
    this.content.push(kept);
    this.runnableCalls++;
    yield { type: 'tool_call', call: { id: part.toolCallId, name: part.toolName, input } };
  }

  private stopOf(reason: { unified: string; raw: string | undefined } | string): ModelStopReason | undefined {
    const unified = typeof reason === 'string' ? reason : reason.unified;
    const raw = typeof reason === 'string' ? undefined : reason.raw;
    // Vendor reasons the unified set folds into `stop`/`other` but the runtime acts on.
    if (raw === 'pause_turn') return 'pause_turn';
    if (raw === 'refusal') return 'refusal';
    switch (unified) {
      case 'stop':
        // Some servers say `stop` after tool calls; the calls are what the runtime must act on.
        return this.runnableCalls > 0 ? 'tool_use' : 'end_turn';
      case 'tool-calls':
        return 'tool_use';
      case 'length':
        return 'max_tokens';
      case 'content-filter':
        return 'refusal';
      case 'error':
        // The error part before it says what went wrong; without one the stream ends as cut short.
        return undefined;
      default:
        // `other`, `interrupted`, and reasons of later specifications.
        return raw === undefined && unified === 'other' ? undefined : 'other';
    }
  }
}

/** A kept piece with its provider metadata as the prompt's `providerOptions` (absent when there is none). */
function keep<T extends KeptContent>(piece: T, metadata: Metadata): T {
  return metadata && Object.keys(metadata).length > 0 ? { ...piece, providerOptions: metadata } : piece;
}

function resultOf(part: Extract<StreamPart, { type: 'tool-result' }>) {
  // The prompt's tool-result holds an output; the stream's holds the raw result (JSON) and an error flag.
  const output = part.isError
    ? { type: 'error-json', value: part.result }
    : { type: 'json', value: part.result };
  return { toolCallId: part.toolCallId, toolName: part.toolName, output };
}

/** File data as JSON: bytes become base64, so the log (JSON lines) holds them as they were. */
function jsonFileData(data: unknown): unknown {
  if (data instanceof Uint8Array) return { type: 'data', data: Buffer.from(data).toString('base64') };
  if (typeof data === 'string') return { type: 'data', data };
  if (typeof data === 'object' && data !== null && 'type' in data) {
    const file = data as { type: string; data?: unknown; url?: unknown };
    if (file.type === 'data' && file.data instanceof Uint8Array)
      return { type: 'data', data: Buffer.from(file.data).toString('base64') };
    if (file.type === 'url' && file.url instanceof URL) return { type: 'url', url: file.url.href };
  }
  return data;
}

function neutralSource(source: LanguageModelV4Source): Citation {
  const citation: Citation =
    source.sourceType === 'url' ? { source: 'url', url: source.url } : { source: 'document' };
  if (source.title !== undefined) citation.title = source.title;
  return citation;
}

/** Input counts apart from the cache, as agentchart keeps them; totals where the parts are missing. */
function mapUsage(usage: LanguageModelV4Usage | undefined): Partial<Usage> | undefined {
  if (!usage || typeof usage.inputTokens !== 'object' || usage.inputTokens === null) return undefined;
  const cacheReadTokens = tokenCount(usage.inputTokens.cacheRead);
  const cacheWriteTokens = tokenCount(usage.inputTokens.cacheWrite);
  const noCache = usage.inputTokens.noCache;
  const inputTokens =
    noCache !== undefined
      ? tokenCount(noCache)
      : Math.max(0, tokenCount(usage.inputTokens.total) - cacheReadTokens - cacheWriteTokens);
  const output = usage.outputTokens;
  const outputTokens =
    output?.total !== undefined
      ? tokenCount(output.total)
      : tokenCount(output?.text) + tokenCount(output?.reasoning);
  return { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens };
}
