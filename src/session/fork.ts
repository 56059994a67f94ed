import { ConfigError } from '../errors/config-error.ts';
import { LogFormatError } from '../errors/log-format-error.ts';
import { validateSequence } from './schema.ts';
import { isEvent, LOG_FORMAT_VERSION, type LogEvent, type LogEventData } from './types.ts';

export type ForkOptions = {
  /** The last source event to keep: a `turn.end`, or the source's `session.start` for an empty fork. */
  atSeq?: number;
  newAgentId: string;
  sourceSessionId: string;
  clock: { now(): number };
};

/**
 * The seed log of a session forked from another: a new `session.start` recording its lineage
 * (`forkOf`) with the source's config, then the source's events 1..atSeq with their original `ts`.
 * `atSeq` defaults to the last turn boundary and must be one, so the fork never starts mid-turn.
 *
 * @throws ConfigError when `atSeq` is not a turn boundary (naming the nearest ones) or out of range.
 * @throws LogFormatError when the source is not a well-formed log.
 */
export function forkEvents(source: readonly LogEvent[], options: ForkOptions): LogEvent[] {
  validateSequence(source);
  const start = source[0];
  if (!start || !isEvent(start, 'session.start')) {
    throw new LogFormatError(`session "${options.sourceSessionId}" has no events to fork from`);
  }
  const boundaries = [start.seq];
  for (const event of source) if (event.type === 'turn.end') boundaries.push(event.seq);
  const atSeq = options.atSeq ?? boundaries[boundaries.length - 1] ?? start.seq;
  checkBoundary(source, boundaries, atSeq, options.sourceSessionId);
  const data: LogEventData['session.start'] = {
    agentId: options.newAgentId,
    forkOf: { sessionId: options.sourceSessionId, atSeq },
    config: structuredClone(start.data.config),
  };
  const seed: LogEvent[] = [
    { v: LOG_FORMAT_VERSION, seq: 0, ts: options.clock.now(), type: 'session.start', data },
  ];
  // A valid source is contiguous from 0, so renumbering keeps every seq (and compaction ranges) intact.
  for (const event of source.slice(1, atSeq + 1)) {
    seed.push({ ...structuredClone(event), v: LOG_FORMAT_VERSION, seq: seed.length });
  }
  return seed;
}

function checkBoundary(
  source: readonly LogEvent[],
  boundaries: readonly number[],
  atSeq: number,
  sessionId: string,
): void {
  const last = source[source.length - 1]?.seq ?? 0;
  if (!Number.isInteger(atSeq) || atSeq < 0 || atSeq > last) {
    throw new ConfigError(`cannot fork session "${sessionId}" at seq ${atSeq}: its log has seq 0..${last}`);
  }
  if (boundaries.includes(atSeq)) return;
  const before = boundaries.filter((seq) => seq < atSeq).pop();
  const after = boundaries.find((seq) => seq > atSeq);
  throw new ConfigError(
    `cannot fork session "${sessionId}" at seq ${atSeq}: it is not a turn boundary ` +
      `(nearest boundaries: ${before ?? 'none'} before, ${after ?? 'none'} after)`,
  );
}
