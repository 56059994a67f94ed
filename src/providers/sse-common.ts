import type { Clock } from '../core/clock.ts';
import { ProviderError } from '../errors/provider-error.ts';
import { classifyError } from './classify-error.ts';
import { redactProviderError } from './secrets.ts';
import { emptyUsage, type ModelEvent, type ModelStopReason, type Usage } from './types.ts';

/**
 * A vendor's token count as agentchart keeps it: a finite, non-negative integer (a fraction rounded
 * down). Anything else, a missing count included, is 0: a local server that leaves `prompt_tokens` out
 * must not put `NaN` in the log, which would then never load again.
 */
export function tokenCount(value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) return 0;
  return Math.min(Number.MAX_SAFE_INTEGER, Math.floor(value));
}

/**
 * Parses accumulated tool-call arguments. Empty means no arguments (`{}`); anything that is not valid
 * JSON is handed on as the raw string, so the tool batch can tell the model what was wrong.
 */
export function parseToolInput(json: string): unknown {
  if (json.trim() === '') return {};
  try {
    return JSON.parse(json);
  } catch {
    // Not a failure of the stream: the raw text is the contract's answer to invalid JSON.
    return json;
  }
}

/** The arguments of a logged tool call as the JSON text a vendor expects back. */
export function stringifyToolInput(input: unknown): string {
  return typeof input === 'string' ? input : JSON.stringify(input ?? {});
}

/** The final events of a stream whose vendor loop ended without throwing. */
export function finishEvents(options: {
  signal: AbortSignal;
  stopReason: ModelStopReason | undefined;
  usage: Partial<Usage> | undefined;
}): ModelEvent[] {
  // Raw SDK streams end silently when aborted, so the signal is the only witness.
  if (options.signal.aborted) return [abortedEvent()];
  // Every count present, 0 where the vendor sent none.
  const usage: ModelEvent[] = options.usage
    ? [{ type: 'usage', usage: { ...emptyUsage, ...options.usage } }]
    : [];
  if (options.stopReason === undefined) {
    return [
      ...usage,
      {
        type: 'error',
        error: new ProviderError({ kind: 'network', message: 'stream ended early, without a stop reason' }),
      },
    ];
  }
  return [...usage, { type: 'done', stopReason: options.stopReason }];
}

/**
 * The `error` event for any failure caught while streaming, with `secrets` (the adapter's own API key)
 * taken out of its message: a server may echo the key it was sent.
 */
export function errorEvent(
  error: unknown,
  context: { signal: AbortSignal; clock: Clock; secrets: Iterable<string | null | undefined> },
): ModelEvent {
  const classified = classifyError(error, { signal: context.signal, clock: context.clock });
  return { type: 'error', error: redactProviderError(classified, context.secrets) };
}

export function abortedEvent(): ModelEvent {
  return { type: 'error', error: new ProviderError({ kind: 'aborted', message: 'request aborted' }) };
}
