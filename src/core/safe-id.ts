// The one rule for the ids the runtime hands out and the stores keep: session, agent and inbox ids. An id
// names a file (`<id>.jsonl`), a PostgreSQL text key and a line of `list()`, and it must come back from
// each of them unchanged: ASCII letters and digits only, so a NUL (which PostgreSQL text refuses) or a
// lone surrogate (which UTF-8 cannot hold, so it would come back as U+FFFD) never gets in.
import { ConfigError } from '../errors/config-error.ts';
import { describeValue } from '../errors/describe-value.ts';

const idPattern = /^[A-Za-z0-9._-]{1,128}$/;

/** The rule in words, for error messages. */
export const safeIdRule = 'an id of 1-128 letters, digits, ".", "_" or "-" (not "." or "..")';

/** Whether `value` is a safe id: usable as a file name on every store, and loadable from any log. */
export function isSafeId(value: unknown): value is string {
  return typeof value === 'string' && idPattern.test(value) && value !== '.' && value !== '..';
}

/**
 * Refuses a session id that is not safe, before a store uses it: a `ConfigError` naming the id (NUL and
 * lone surrogates shown escaped) and the rule.
 */
export function checkSessionId(sessionId: unknown): asserts sessionId is string {
  if (!isSafeId(sessionId))
    throw new ConfigError(`invalid session id ${describeValue(sessionId)}: it must be ${safeIdRule}`);
}
