import { ReplayDivergenceError } from '../errors/replay-divergence-error.ts';
import { divergenceReason } from './divergence-reason.ts';
import { diffEvents } from './log-diff.ts';
import { formatLogLine } from './schema.ts';
import type { LogEvent } from './types.ts';

/** A report names this many changed fields of the diverging event at most (a wholly other event has many). */
const maxChanges = 20;

/**
 * Compares two logs byte for byte, event by event, as the file store would write them. Throws
 * `ReplayDivergenceError` at the first differing `seq` (its report: the event types, the fields that
 * differ, one line of why, both lines); returns when they are equal.
 */
export function assertSameLog(expected: readonly LogEvent[], actual: readonly LogEvent[]): void {
  const divergence = firstDivergence(expected, actual);
  if (divergence) throw divergence;
}

/**
 * The first difference between a recording and its replay, as the error `assertSameLog` throws, or
 * undefined when the logs are equal byte for byte. `stopped` is why the replay ended early, if it did.
 */
export function firstDivergence(
  expected: readonly LogEvent[],
  actual: readonly LogEvent[],
  stopped?: string,
): ReplayDivergenceError | undefined {
  const length = Math.max(expected.length, actual.length);
  for (let seq = 0; seq < length; seq++) {
    const want = expected[seq] ? formatLogLine(expected[seq]!).trimEnd() : undefined;
    const got = actual[seq] ? formatLogLine(actual[seq]!).trimEnd() : undefined;
    if (want === got) continue;
    // The values as written (what was undefined is gone), so the diff sees what the bytes say.
    const recordedEvent = want === undefined ? undefined : (JSON.parse(want) as LogEvent);
    const replayedEvent = got === undefined ? undefined : (JSON.parse(got) as LogEvent);
    const all = recordedEvent && replayedEvent ? diffEvents(recordedEvent, replayedEvent) : [];
    const changes = all.slice(0, maxChanges);
    const reason = divergenceReason({
      recorded: expected,
      expected: recordedEvent,
      actual: replayedEvent,
      changes,
      ...(stopped !== undefined ? { stopped } : {}),
    });
    return new ReplayDivergenceError({
      seq,
      recordedType: recordedEvent?.type,
      replayedType: replayedEvent?.type,
      reason,
      changes,
      ...(all.length > maxChanges ? { moreChanges: all.length - maxChanges } : {}),
      ...(stopped !== undefined ? { stopped } : {}),
      recorded: want,
      replayed: got,
    });
  }
  return undefined;
}
