import { fromCallback } from 'xstate';
import type { Clock } from '../core/clock.ts';

/** Sends `retry.due` after `delayMs` on the injected clock; stopping it cancels the timer. */
export function createRetryTimerActor(clock: Clock) {
  return fromCallback<{ type: 'noop' }, { delayMs: number }>(({ input, sendBack }) =>
    clock.setTimer(() => sendBack({ type: 'retry.due' }), input.delayMs),
  );
}
