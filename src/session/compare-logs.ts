import { ReplayDivergenceError } from '../errors/replay-divergence-error.ts';
import { formatLogLine } from './schema.ts';
import type { LogEvent } from './types.ts';

/**
 * Compares two logs byte for byte, event by event, as the file store would write them. Throws
 * `ReplayDivergenceError` with the first differing `seq` and both lines; returns when they are equal.
 */
export function assertSameLog(expected: readonly LogEvent[], actual: readonly LogEvent[]): void {
  const length = Math.max(expected.length, actual.length);
  for (let seq = 0; seq < length; seq++) {
    const want = expected[seq] ? formatLogLine(expected[seq]!).trimEnd() : undefined;
    const got = actual[seq] ? formatLogLine(actual[seq]!).trimEnd() : undefined;
    if (want !== got) throw new ReplayDivergenceError(seq, want, got);
  }
}
