import { fnv1a } from '../core/hash.ts';
import { attemptLimitOf, type ProviderErrorData } from '../errors/provider-error.ts';

export type RetryPolicy = {
  /** Attempts in all, the first included (default 5). */
  maxAttempts: number;
  /** Backoff before the second attempt; doubles each time (default 1 s). */
  baseDelayMs: number;
  /** Ceiling of one backoff (default 32 s). A provider's retry-after is honoured even when longer. */
  maxDelayMs: number;
};

/**
 * The one home of the retry defaults: the step chart falls back to them, and `createAgentSystem` fills
 * `limits.maxAttempts` and `retry` from them (runtime/options.ts, runtime/options-schema.ts).
 */
export const defaultRetryPolicy: Readonly<RetryPolicy> = {
  maxAttempts: 5,
  baseDelayMs: 1_000,
  maxDelayMs: 32_000,
};

/**
 * How long to wait before attempt `attempt + 1`, or `undefined` to give up. Jitter (up to a quarter of
 * the backoff) is derived from `jitterKey` by hashing, not from randomness, so a replayed session waits
 * exactly as the recorded one did.
 */
export function retryDelay(
  error: ProviderErrorData,
  attempt: number,
  policy: RetryPolicy,
  jitterKey: string,
): number | undefined {
  const limit = Math.min(policy.maxAttempts, attemptLimitOf(error.kind) ?? policy.maxAttempts);
  if (!error.retryable || attempt >= limit) return undefined;
  if (error.retryAfterMs !== undefined) return Math.max(0, Math.ceil(error.retryAfterMs));
  const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(backoff * (1 - 0.25 * unitHash(`${jitterKey}:${attempt}`)));
}

/** The key's hash, scaled to [0, 1). */
function unitHash(key: string): number {
  return fnv1a(key) / 0x1_0000_0000;
}
