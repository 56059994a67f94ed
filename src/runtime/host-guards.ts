// The host's id generator and clock as the runtime calls them. Their shape is checked once by the options
// schema; what they return is checked on every call, because a bad id or time would otherwise be written
// into a log that can then never be loaded.
import { z } from 'zod/v4';
import { type Clock, type IdGenerator, systemClock } from '../core/clock.ts';
import { must } from '../core/host-schema.ts';
import { safeIdRule as idRule, isSafeId } from '../core/safe-id.ts';
import { ConfigError } from '../errors/config-error.ts';
import { describeValue, messageOf } from '../errors/describe-value.ts';

/** Session, agent and inbox ids as call arguments (the rule is `isSafeId`'s). */
export const idSchema = z.custom<string>(isSafeId, must(idRule));

/**
 * The host's generator, checked where each id is produced: a value that is not a safe id (or a throw)
 * is a ConfigError at the public call that needed it, before anything was sent or written.
 */
export function checkedIds(ids: IdGenerator): (call: string) => string {
  return (call) => {
    let id: unknown;
    try {
      id = ids();
    } catch (error) {
      throw new ConfigError(`${call}: ids() threw: ${messageOf(error)}`, { cause: error });
    }
    if (!isSafeId(id))
      throw new ConfigError(`${call}: ids() must return ${idRule}, got ${describeValue(id)}`);
    return id;
  };
}

/**
 * The host's clock, made safe to call from inside actors. `now()` answers the last good time when the
 * host's returns something that is not a finite number (or throws), so `ts` is always loadable. A timer
 * fires at most once, never after its cancel, and never synchronously inside `setTimer`; a `setTimer`
 * that throws falls back to a real timer, so nothing waits forever.
 */
export function guardedClock(clock: Clock): Clock {
  if (clock === systemClock) return clock;
  let last = 0;
  return {
    now() {
      try {
        const time: unknown = clock.now();
        if (typeof time === 'number' && Number.isFinite(time)) last = time;
      } catch {
        // A clock that cannot tell the time keeps the last time it told.
      }
      return last;
    },
    setTimer(callback, ms) {
      let state: 'starting' | 'waiting' | 'done' = 'starting';
      const fire = () => {
        if (state === 'done') return;
        if (state === 'starting') {
          queueMicrotask(fire);
          return;
        }
        state = 'done';
        callback();
      };
      let cancelHost: unknown;
      try {
        cancelHost = clock.setTimer(fire, ms);
      } catch {
        cancelHost = systemClock.setTimer(fire, ms);
      }
      if (state === 'starting') state = 'waiting';
      return () => {
        state = 'done';
        try {
          if (typeof cancelHost === 'function') cancelHost();
        } catch {
          // The timer is already disarmed above; the host's own cancel failing changes nothing.
        }
      };
    },
  };
}
