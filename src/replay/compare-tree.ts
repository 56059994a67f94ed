// A replayed tree compared with its recording: the parent's log and every subagent's, each with its own.
import { ReplayDivergenceError } from '../errors/replay-divergence-error.ts';
import { firstDivergence } from '../session/compare-logs.ts';
import type { LogEvent } from '../session/types.ts';

/** One session's logs: as recorded and as replayed (undefined when the replay never started it). */
type SessionLogs = { sessionId?: string; recorded: readonly LogEvent[]; replayed: readonly LogEvent[] };

/**
 * The first divergence of a replayed tree, or undefined when the parent's log and every subagent's equal
 * their recordings byte for byte. Of several, the one the recording reached first (by the recorded `ts` of
 * the diverging event), a subagent's before its parent's at the same time: a child that went another way is
 * why its parent's `task` call answered differently, not the other way round. A subagent's divergence names
 * the subagent's session (`sessionId`); one the replay never started diverges at its seq 0.
 */
export function firstTreeDivergence(
  root: { recorded: readonly LogEvent[]; replayed: readonly LogEvent[]; stopped?: string | undefined },
  subagents: {
    recorded: ReadonlyMap<string, readonly LogEvent[]>;
    replayed: ReadonlyMap<string, LogEvent[]>;
  },
): ReplayDivergenceError | undefined {
  const sessions: SessionLogs[] = [
    ...[...subagents.recorded].map(([sessionId, recorded]) => ({
      sessionId,
      recorded,
      replayed: subagents.replayed.get(sessionId) ?? [],
    })),
    { recorded: root.recorded, replayed: root.replayed },
  ];
  let first: { at: number; divergence: ReplayDivergenceError } | undefined;
  for (const { sessionId, recorded, replayed } of sessions) {
    const found = firstDivergence(recorded, replayed, sessionId === undefined ? root.stopped : undefined);
    if (!found) continue;
    const at = recorded[found.seq]?.ts ?? recorded.at(-1)?.ts ?? 0;
    if (first && first.at <= at) continue;
    const divergence =
      sessionId === undefined ? found : new ReplayDivergenceError({ ...found.toJSON(), sessionId });
    first = { at, divergence };
  }
  return first?.divergence;
}
