// A recording is one or more segments, one per process that wrote it: the one that started the session
// (`session.start`) and each one that continued it (`session.resumed`). A replay runs them one after the
// other, as the recording's processes did, each with the configuration its own first event records.
import { isEvent, type LogEvent } from '../session/types.ts';

/** The events one process wrote, and how that process ended. */
export type RecordingSegment = {
  /** The index of its first event: `session.start`, or `session.resumed`. */
  from: number;
  /** One past its last event. */
  to: number;
  /**
   * `disposed`: it ended with `session.end` (at `to - 1`). `crashed`: it stopped writing without one (a
   * kill; the next process repaired what it left open), so its log ends with the last event it flushed.
   * `open`: the recording stops inside it.
   */
  end: 'disposed' | 'crashed' | 'open';
  /** What it ran with: `session.start`'s or `session.resumed`'s `config`. */
  config: Record<string, unknown>;
};

/**
 * The segments of a recording that begins with `session.start`. Events after a `session.end` that do not
 * begin with `session.resumed` were written by a build that did not record what the resumed process ran
 * with: they are left out, and `unrecorded` names the index where they begin (a replay stops there, as it
 * must not guess the configuration).
 */
export function recordingSegments(recorded: readonly LogEvent[]): {
  segments: RecordingSegment[];
  unrecorded?: number;
} {
  const segments: RecordingSegment[] = [];
  let from = 0;
  let config = configOf(recorded[0]);
  for (let index = 1; index <= recorded.length; index++) {
    const event = recorded[index];
    const ended = recorded[index - 1]?.type === 'session.end';
    if (event !== undefined && !ended && !isEvent(event, 'session.resumed')) continue;
    const end = ended ? 'disposed' : event === undefined ? 'open' : 'crashed';
    if (config) segments.push({ from, to: index, end, config });
    if (event === undefined) break;
    const next = configOf(event);
    if (!next) return { segments, unrecorded: index };
    from = index;
    config = next;
  }
  return { segments };
}

function configOf(event: LogEvent | undefined): Record<string, unknown> | undefined {
  if (!event) return undefined;
  if (isEvent(event, 'session.start') || isEvent(event, 'session.resumed')) return event.data.config;
  return undefined;
}
