import type { Clock } from '../core/clock.ts';
import { messageOf } from '../errors/describe-value.ts';
import { StoreUnavailableError } from '../errors/store-unavailable-error.ts';

/** How long the store waits for an unreachable server before it gives up: bounded, never forever. */
export type RetryPolicy = {
  /** Tries in all, the first included (default 40). */
  attempts: number;
  /** The first wait (default 100 ms); it doubles up to `maxDelayMs`. */
  firstDelayMs: number;
  /** The longest single wait (default 1 s): 40 attempts wait about 35 s in all. */
  maxDelayMs: number;
};

export const defaultRetry: RetryPolicy = { attempts: 40, firstDelayMs: 100, maxDelayMs: 1000 };

// Network errors, and the SQLSTATEs of a server that is shutting down, starting, or dropped the link
// (classes 08 and 57P): the request may be sent again once the server answers.
const unavailableCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
]);

/** Whether `error` says the server is out of reach right now (as opposed to refusing the request). */
export function isUnavailable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') {
    if (unavailableCodes.has(code) || code.startsWith('08') || code.startsWith('57P')) return true;
  }
  // pg reports a link dropped under a query or a connect without a code.
  return /Connection terminated|connection timeout|Client has encountered a connection error/i.test(
    messageOf(error),
  );
}

/**
 * Runs `operation`, and again after a growing pause while the server is unavailable, up to the policy's
 * attempts; then rejects with `StoreUnavailableError` naming `what`. Other errors reject at once.
 * `operation` learns which attempt it is, so a write can check whether an earlier try already committed.
 */
export async function withRetry<T>(
  what: string,
  policy: RetryPolicy,
  clock: Clock,
  operation: (attempt: number) => Promise<T>,
): Promise<T> {
  let delay = policy.firstDelayMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await operation(attempt);
    } catch (error) {
      if (!isUnavailable(error)) throw error;
      if (attempt >= policy.attempts) {
        throw new StoreUnavailableError(
          `${what}: PostgreSQL did not answer after ${attempt} attempts (${messageOf(error)})`,
          { cause: error },
        );
      }
    }
    await new Promise<void>((resolve) => clock.setTimer(resolve, delay));
    delay = Math.min(delay * 2, policy.maxDelayMs);
  }
}
