import type { ProviderError } from '../errors/provider-error.ts';

/** Token counts of one model response (or a sum of them). Cache counters are 0 when unknown. */
export type Usage = {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
};

export const emptyUsage: Usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };

export function addUsage(a: Usage, b: Partial<Usage>): Usage {
  return {
    inputTokens: a.inputTokens + (b.inputTokens ?? 0),
    outputTokens: a.outputTokens + (b.outputTokens ?? 0),
    cacheReadTokens: a.cacheReadTokens + (b.cacheReadTokens ?? 0),
    cacheWriteTokens: a.cacheWriteTokens + (b.cacheWriteTokens ?? 0),
  };
}

/** What a tool looks like to the model: name, description and a JSON Schema (draft-07, no `$schema`). */
export type ToolSpec = { name: string; description: string; inputSchema: Record<string, unknown> };

export type ToolCallRequest = { id: string; name: string; input: unknown };

/**
 * Opaque provider-specific content that must be sent back verbatim on the next request, such as
 * Anthropic thinking blocks (with their signatures) or OpenAI reasoning items. Logged with the
 * assistant message so a resumed or replayed session sends exactly what the vendor expects.
 */
export type ProviderPart = { provider: string; type: string; data: unknown };

/**
 * A source the model cited for part of its text, in one shape for every vendor (each vendor's own form
 * stays in the message's provider parts). `start`/`end` are character offsets into the assistant message's
 * `text` (`text.slice(start, end)` is the passage it supports; equal for a point); both are absent when the
 * vendor does not say where (Perplexity's numbered sources).
 *
 * @example
 * { source: 'url', url: 'https://example.com/a', title: 'A', citedText: '…', start: 120, end: 184 }
 */
export type Citation = {
  /** A web page (`url`), a document given in the request (`document`), or a file the vendor holds (`file`). */
  source: 'url' | 'document' | 'file';
  url?: string;
  title?: string;
  /** The cited passage of the source, when the vendor quotes it. */
  citedText?: string;
  /** The vendor's id of a cited file. */
  fileId?: string;
  start?: number;
  end?: number;
};

export type ModelMessage =
  | { role: 'user'; content: string }
  | { role: 'assistant'; text: string; toolCalls: ToolCallRequest[]; providerParts?: ProviderPart[] }
  | { role: 'tool'; callId: string; name: string; content: string; isError: boolean };

/**
 * The JSON a turn's final answer must be: `schema` is a JSON Schema (draft-07, no `$schema`) of an object.
 * Adapters ask for it the way their API can (OpenAI's `json_schema` response format, Anthropic's
 * `output_config.format` or a final-answer tool, the AI SDK's `responseFormat`); the runtime checks the
 * answer either way.
 */
export type OutputFormat = { schema: Record<string, unknown> };

/**
 * The provider-neutral request of one step: a pure projection of the session log. Providers read it and
 * must not change it: its arrays are shared with the projection cache (copying them for every step
 * would cost time proportional to the whole conversation).
 */
export type ModelRequest = {
  system: string;
  tools: readonly ToolSpec[];
  messages: readonly ModelMessage[];
  /**
   * The same for every request of a session (its id): vendors that cache by key (OpenAI's
   * `prompt_cache_key`) route the session's requests to the same cache with it.
   */
  cacheKey?: string;
  /** The format the turn's final answer must have (a typed run); absent for free text. */
  output?: OutputFormat;
};

/** US dollars per million tokens, by how the vendor bills them (see `providers/prices.ts`). */
export type ModelPrices = {
  input: number;
  output: number;
  /** Input read from the prompt cache. */
  cacheRead: number;
  /** Input written to the prompt cache (OpenAI writes at the input price; Anthropic by lifetime). */
  cacheWrite: number;
};

/** What a provider says of its prompt caching: plain values, recorded in `session.start`. */
export type PromptCacheSetting = false | Readonly<Record<string, string>>;

/** Why the model stopped. Vendors' reasons are mapped onto these by each adapter. */
export const modelStopReasons = [
  'end_turn',
  'tool_use',
  'max_tokens',
  'stop_sequence',
  'refusal',
  'pause_turn',
  'other',
] as const;
export type ModelStopReason = (typeof modelStopReasons)[number];

export type ModelEvent =
  | { type: 'text.delta'; text: string }
  | { type: 'thinking.delta'; text: string }
  | { type: 'tool_call'; call: ToolCallRequest }
  | { type: 'provider_part'; part: ProviderPart }
  | { type: 'citation'; citation: Citation }
  | { type: 'usage'; usage: Partial<Usage> }
  | { type: 'done'; stopReason: ModelStopReason }
  | { type: 'error'; error: ProviderError };

/**
 * A model behind one interface.
 *
 * Contract: `stream` never throws and never rejects once iteration has begun; every stream ends with
 * exactly one `done` or `error` event (an abort through `signal` ends with `error` of kind `aborted`).
 * Tool-call arguments arrive whole in `tool_call` (adapters accumulate the vendor's deltas); a call
 * whose arguments are not valid JSON arrives with `input` set to the raw string, so the tool batch can
 * tell the model what was wrong instead of failing the step. The runtime does not trust a provider to
 * keep this contract: what breaks it is repaired, dropped with a note, or ends the step with a
 * `bad_response` error (see `ResponseReader`), and a stream that throws ends the step too.
 */
export interface Provider {
  readonly name: string;
  readonly model: string;
  /**
   * How many tokens the model's context window holds (input and output together). Adapters know the
   * windows of their vendor's models and take a `contextWindow` option for others; without it the
   * runtime assumes `defaultContextWindow`.
   */
  readonly contextWindow?: number;
  /**
   * How the adapter asks its vendor to cache the request prefix (breakpoints and their lifetime, a cache
   * key), as `session.start` records it; `false` when it asks for nothing, absent when it cannot say.
   */
  readonly promptCache?: PromptCacheSetting;
  /**
   * What its tokens cost (US dollars per million), for the estimate `/cost` and the run result show;
   * absent when the adapter does not know the model's prices. Recorded in `session.start`.
   */
  readonly prices?: ModelPrices;
  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent>;
}

/**
 * The window assumed for a model nobody described: small enough that a session compacts before a
 * typical local model (8k–32k) overflows, large enough not to compact a short session at all.
 */
export const defaultContextWindow = 32_000;

/** The context window of a provider's model, in tokens. */
export function contextWindowOf(provider: Pick<Provider, 'contextWindow'>): number {
  return provider.contextWindow ?? defaultContextWindow;
}
