import type { StopReason, SupervisionSpec } from '../session/types.ts';
import type { SupervisedFailure } from './supervision-types.ts';

/**
 * The failure a turn's end is, if a supervisor restarts on it: only `model_error` (the provider's own
 * retries were spent). Not restarted: `completed`; `canceled` (someone meant it); `invalid_output`,
 * `max_steps`, `max_tokens`, `unknown_tool_limit`, `blocked` (the same conversation would fail the same
 * way: a limit or a verdict, not a fault); `interrupted` (a crash the resume already continues).
 */
export function failureOf(reason: StopReason, error?: string): SupervisedFailure | undefined {
  if (reason !== 'model_error') return undefined;
  return error === undefined ? { reason } : { reason, error };
}

/** The wait before restart `attempt` (1 for the first): `backoffMs`, doubled at each restart, capped. */
export function restartDelay(policy: SupervisionSpec, attempt: number): number {
  return Math.min(policy.backoffMs * 2 ** Math.max(0, attempt - 1), maxDelayMs);
}

/** The longest a timer can wait (a longer backoff is capped here). */
const maxDelayMs = 2 ** 31 - 1;
