// How a hook point is consulted: live, its hooks run as a waterfall; in a replay, the decisions the
// recording logged are read back and nothing runs.
import { isEvent, type LogEvent } from '../session/types.ts';
import type { HookConsult, HookDecidedData, HookPoint, HookTable } from './hook-types.ts';
import { runWaterfall } from './waterfall.ts';

/** Runs the hooks of each point in order. */
export function liveConsult(table: HookTable): (point: HookPoint) => HookConsult {
  return (point) => {
    const entries = table[point];
    // A point without hooks decides nothing: no waterfall to run (the session points are asked at every
    // setup and dispose, hooks or not).
    if (entries === undefined || entries.length === 0) return noDecisions;
    return (input, subject, signal) => runWaterfall(entries, input, subject, signal);
  };
}

const noDecisions: HookConsult = () => Promise.resolve([]);

/** What one consultation is known by in a log: its point, turn, step and the call or input it was about. */
function consultKey(
  point: HookPoint,
  turn: number,
  step: number,
  about: string | number | undefined,
): string {
  return JSON.stringify([point, turn, step, about ?? null]);
}

/**
 * Answers each consultation with the decisions a recorded log holds for it, without running a hook: the
 * replay logs the same decisions and the same changes, byte for byte. A consultation the recording has no
 * decisions for has none (no opinion).
 */
export function recordedConsult(events: readonly LogEvent[]): (point: HookPoint) => HookConsult {
  const recorded = new Map<string, HookDecidedData[]>();
  for (const event of events) {
    if (!isEvent(event, 'hook.decided')) continue;
    const { data } = event;
    const key = consultKey(
      data.point,
      event.turn ?? 0,
      event.step ?? 0,
      data.callId ?? data.inboxId ?? data.attempt,
    );
    recorded.set(key, [...(recorded.get(key) ?? []), data]);
  }
  return (point) => (input, subject) => {
    const key = consultKey(
      point,
      input.turn,
      input.step,
      subject.callId ?? subject.inboxId ?? subject.attempt,
    );
    return Promise.resolve(recorded.get(key) ?? []);
  };
}

/** The points a recorded log consulted, for a replay to wait at the same places. */
export function recordedPoints(events: readonly LogEvent[]): Set<HookPoint> {
  const points = new Set<HookPoint>();
  for (const event of events) if (isEvent(event, 'hook.decided')) points.add(event.data.point);
  return points;
}
