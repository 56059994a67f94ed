import { describe, expect, it } from 'vitest';
import {
  isRetryableKind,
  type ProviderErrorData,
  providerErrorKinds,
} from '../../src/errors/provider-error.ts';
import { defaultRetryPolicy, type RetryPolicy, retryDelay } from '../../src/machines/retry-policy.ts';

const policy: RetryPolicy = { maxAttempts: 5, baseDelayMs: 1_000, maxDelayMs: 8_000 };
const overloaded: ProviderErrorData = { kind: 'overloaded', message: 'busy', retryable: true };

describe('retryDelay', () => {
  it('retries only the kinds that may heal by waiting; a malformed response (bad_response) is not one', () => {
    expect(providerErrorKinds.filter(isRetryableKind)).toEqual([
      'rate_limit',
      'overloaded',
      'server',
      'network',
      'invalid_output',
    ]);
    expect(providerErrorKinds.filter((kind) => !isRetryableKind(kind))).toEqual([
      'auth',
      'bad_request',
      'context_overflow',
      'quota',
      'aborted',
      'bad_response',
    ]);
  });

  it('has the documented defaults', () => {
    expect(defaultRetryPolicy).toEqual({ maxAttempts: 5, baseDelayMs: 1_000, maxDelayMs: 32_000 });
  });

  it('honours retry-after exactly, rounded up, even above the backoff ceiling', () => {
    const limited = (retryAfterMs: number): ProviderErrorData => ({
      kind: 'rate_limit',
      message: '429',
      retryable: true,
      retryAfterMs,
    });
    expect(retryDelay(limited(250), 1, policy, 'k')).toBe(250);
    expect(retryDelay(limited(1234.2), 3, policy, 'k')).toBe(1235);
    expect(retryDelay(limited(60_000), 1, policy, 'k')).toBe(60_000);
    expect(retryDelay(limited(0), 2, policy, 'k')).toBe(0);
  });

  it('backs off exponentially up to the ceiling, minus at most a quarter of jitter', () => {
    const ceilings = [1_000, 2_000, 4_000, 8_000];
    for (const key of ['a', 'b', 'agent-7:1:1', 'agent-7:3:2', 'x'.repeat(40)]) {
      const delays = ceilings.map((_, i) => retryDelay(overloaded, i + 1, policy, key)!);
      delays.forEach((delay, i) => {
        expect(delay).toBeLessThanOrEqual(ceilings[i]!);
        expect(delay).toBeGreaterThanOrEqual(ceilings[i]! * 0.75);
        expect(Number.isInteger(delay)).toBe(true);
      });
    }
    const capped: RetryPolicy = { maxAttempts: 20, baseDelayMs: 1_000, maxDelayMs: 8_000 };
    const late = retryDelay(overloaded, 12, capped, 'k')!;
    expect(late).toBeLessThanOrEqual(8_000);
    expect(late).toBeGreaterThanOrEqual(6_000);
  });

  it('derives jitter from the key: the same key waits the same, keys spread over the band', () => {
    const delays = Array.from(
      { length: 200 },
      (_, i) => retryDelay(overloaded, 1, policy, `agent-${i}:1:1`)!,
    );
    const again = Array.from({ length: 200 }, (_, i) => retryDelay(overloaded, 1, policy, `agent-${i}:1:1`)!);
    expect(again).toEqual(delays);
    for (const delay of delays) {
      expect(delay).toBeGreaterThanOrEqual(750);
      expect(delay).toBeLessThanOrEqual(1_000);
    }
    // Real jitter: many distinct values, some in each half of the band.
    expect(new Set(delays).size).toBeGreaterThan(100);
    expect(delays.some((delay) => delay < 875)).toBe(true);
    expect(delays.some((delay) => delay > 875)).toBe(true);
    // The attempt number is part of the key, so successive waits are jittered independently.
    expect(retryDelay(overloaded, 2, policy, 'k')).not.toBe(2 * retryDelay(overloaded, 1, policy, 'k')!);
  });

  it('gives up once the attempt that failed is the last one allowed', () => {
    expect(retryDelay(overloaded, 4, policy, 'k')).toBeTypeOf('number');
    expect(retryDelay(overloaded, 5, policy, 'k')).toBeUndefined();
    expect(retryDelay(overloaded, 6, policy, 'k')).toBeUndefined();
    expect(retryDelay(overloaded, 1, { ...policy, maxAttempts: 1 }, 'k')).toBeUndefined();
  });

  it('tries a malformed generation (invalid_output) once more, and only once', () => {
    const invalid: ProviderErrorData = {
      kind: 'invalid_output',
      message: 'tool_use_failed',
      retryable: true,
    };
    expect(retryDelay(invalid, 1, policy, 'k')).toBeTypeOf('number');
    expect(retryDelay(invalid, 2, policy, 'k')).toBeUndefined();
    expect(retryDelay(invalid, 1, { ...policy, maxAttempts: 1 }, 'k')).toBeUndefined();
  });

  it('never retries a non-retryable error, even with a retry-after', () => {
    for (const kind of ['auth', 'bad_request', 'context_overflow', 'aborted'] as const) {
      expect(retryDelay({ kind, message: kind, retryable: false }, 1, policy, 'k')).toBeUndefined();
    }
    expect(
      retryDelay({ kind: 'rate_limit', message: 'no', retryable: false, retryAfterMs: 10 }, 1, policy, 'k'),
    ).toBeUndefined();
  });
});
