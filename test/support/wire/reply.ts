import type { OverflowServer } from './overflow.ts';

/**
 * A vendor-neutral description of one model response, which each fake vendor server turns into its own
 * streaming wire format. The shared provider contract is written against these.
 */
export type WireTurn = {
  /** Thinking (Anthropic) or a reasoning summary (Responses) streamed in these pieces. */
  thinking?: { pieces: string[]; signature: string };
  text?: string[];
  toolCalls?: WireToolCall[];
  /** Send the argument pieces of all tool calls interleaved (where the format allows it). */
  interleave?: boolean;
  /** Uncached input, output, cache reads and cache writes. */
  usage?: { input: number; output: number; cacheRead?: number; cacheWrite?: number };
  /**
   * Usage counts sent exactly as given, in place of `usage`; a count left out is not sent at all. For
   * servers that omit counts (many OpenAI-compatible ones leave out `prompt_tokens`) or garble them.
   */
  rawCounts?: RawCounts;
  stop?: 'end_turn' | 'tool_use' | 'max_tokens';
  /**
   * How the stream ends: `complete` normally; `hang` stays open until the client aborts; `reset`
   * destroys the socket; `malformed` sends a broken message; `truncated` ends without a stop reason;
   * `error_event` sends the vendor's in-stream error event; `overflow_event` the vendor's in-stream
   * refusal of a request too long for the context window.
   */
  ending?: 'complete' | 'hang' | 'reset' | 'malformed' | 'truncated' | 'error_event' | 'overflow_event';
  /** The vendor error type of `error_event` (default: the vendor's generic server error). */
  errorType?: string;
};

export type RawCounts = { input?: unknown; output?: unknown; cacheRead?: unknown; cacheWrite?: unknown };

/** The counts of `raw` under the vendor's field names, leaving out those not given. */
export function rawUsage(
  raw: RawCounts,
  names: Partial<Record<keyof RawCounts, string>>,
): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const [key, name] of Object.entries(names) as [keyof RawCounts, string][]) {
    if (key in raw) fields[name] = raw[key];
  }
  return fields;
}

export type WireToolCall = { id: string; name: string; argumentPieces: string[] };

export type WireHttpError = {
  status: number;
  message: string;
  /** The vendor's error type in the body (default chosen from the status). */
  errorType?: string;
  headers?: Record<string, string>;
};

/** `overflow`: the server refuses the request as too long for the context window, in its own words. */
export type WireReply = { turn: WireTurn } | { httpError: WireHttpError } | { overflow: OverflowServer };

export function usageOf(turn: WireTurn) {
  return {
    input: turn.usage?.input ?? 10,
    output: turn.usage?.output ?? 5,
    cacheRead: turn.usage?.cacheRead ?? 0,
    cacheWrite: turn.usage?.cacheWrite ?? 0,
  };
}

export function stopOf(turn: WireTurn): 'end_turn' | 'tool_use' | 'max_tokens' {
  return turn.stop ?? ((turn.toolCalls?.length ?? 0) > 0 ? 'tool_use' : 'end_turn');
}

/** Argument pieces in the order they go on the wire: one call after another, or round-robin. */
export function argumentOrder(turn: WireTurn): { call: number; piece: string }[] {
  const calls = turn.toolCalls ?? [];
  const order: { call: number; piece: string }[] = [];
  if (!turn.interleave) {
    calls.forEach((call, index) => {
      for (const piece of call.argumentPieces) order.push({ call: index, piece });
    });
    return order;
  }
  const longest = Math.max(0, ...calls.map((call) => call.argumentPieces.length));
  for (let position = 0; position < longest; position++) {
    calls.forEach((call, index) => {
      const piece = call.argumentPieces[position];
      if (piece !== undefined) order.push({ call: index, piece });
    });
  }
  return order;
}
