import { z } from 'zod/v4';
import { LogFormatError } from '../errors/log-format-error.ts';
import { isEventType, logEventDataSchemas } from './event-data-schemas.ts';
import { LOG_FORMAT_VERSION, type LogEvent } from './types.ts';

/**
 * Checks that `event` will load again, before a store is given it, at a small cost per event: the
 * envelope by hand, `data` against its type's schema, and a walk that finds what JSON would change
 * (`NaN` and `Infinity` become `null`, a `BigInt` or a cycle cannot be written, class instances lose
 * their class). Throws `LogFormatError` naming the seq, the type and what is wrong, so a bug upstream
 * fails at write time instead of leaving a log that never loads.
 */
export function checkWritable(event: LogEvent): void {
  const problem = envelopeProblem(event) ?? jsonProblem(event.data, 0);
  if (problem !== undefined) throw new LogFormatError(`${cannotWrite(event)}: ${problem}`);
  const data = logEventDataSchemas[event.type].safeParse(event.data);
  if (!data.success)
    throw new LogFormatError(`${cannotWrite(event)}: bad data\n${z.prettifyError(data.error)}`);
}

/** The start of the message about an event that cannot be written (built only when one cannot). */
function cannotWrite(event: LogEvent): string {
  return `event ${String(event.seq)} ("${String(event.type)}") cannot be written`;
}

const isCount = (value: unknown) => typeof value === 'number' && Number.isInteger(value) && value >= 0;

function envelopeProblem(event: LogEvent): string | undefined {
  const { v, seq, ts, type, turn, step, data } = event as Partial<Record<keyof LogEvent, unknown>>;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > LOG_FORMAT_VERSION)
    return `bad version ${String(v)}`;
  if (!isCount(seq)) return `seq ${String(seq)} is not a count`;
  if (typeof ts !== 'number' || !Number.isFinite(ts)) return `ts ${String(ts)} is not a finite number`;
  if (!isEventType(type)) return 'unknown event type';
  if (turn !== undefined && !isCount(turn)) return `turn ${String(turn)} is not a count`;
  if (step !== undefined && !isCount(step)) return `step ${String(step)} is not a count`;
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return 'data is not an object';
  return undefined;
}

/** How deep an event's `data` may nest: deeper than any real event; a cycle ends here too. */
export const maxDataDepth = 200;
const maxDepth = maxDataDepth;

/** What a JSON round trip would change in `value` (with where, as `at data.x[2]: ...`), or nothing. */
function jsonProblem(value: unknown, depth: number): string | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return undefined;
    case 'number':
      return Number.isFinite(value) ? undefined : `at data: ${value} would be written as null`;
    case 'object':
      break;
    default:
      return `at data: a ${typeof value} cannot be written as JSON`;
  }
  if (value === null) return undefined;
  if (depth >= maxDepth) return `data nests more than ${maxDepth} levels deep (or is circular)`;
  // Plain loops, no closure per object: this runs on every event the log writes.
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const item: unknown = value[index];
      if (item === undefined) return `at data[${index}]: undefined would be written as null`;
      const problem = jsonProblem(item, depth + 1);
      if (problem !== undefined) return within(`[${index}]`, problem);
    }
    return undefined;
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) {
    return `at data: a ${prototype?.constructor?.name ?? 'class'} instance would lose its class in JSON`;
  }
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const item: unknown = (value as Record<string, unknown>)[key];
    if (item === undefined) continue;
    const problem = jsonProblem(item, depth + 1);
    if (problem !== undefined) return within(`.${key}`, problem);
  }
  return undefined;
}

/** A problem found inside a field, named from the field's parent: `at data.x` + `[2]: …`. */
function within(key: string, problem: string): string {
  return problem.replace(/^at data/, `at data${key}`);
}
