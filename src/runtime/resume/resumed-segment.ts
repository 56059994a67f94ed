// What a process that continues a stored session writes first. A resumed process may run with another
// model, mode, limits or tools than the one that started the session (`agentchart resume --mode …`, the
// chat's `/model`), and the log must say so: a replay reads each segment's configuration from here and
// never guesses it from `session.start`.
import type { SessionLog } from '../../session/session-log.ts';
import type { LogEvent } from '../../session/types.ts';

/**
 * Appends `session.resumed` with `config` (this segment's configuration), then `repaired`: what repair
 * closes of a crashed segment, numbered after it and stamped with its time. One reading of the clock for
 * all of them: they are written at one moment (before the agent's first flush), and a replay, whose clock
 * gives the time of the event it will write next, stamps them the same way.
 */
export function logResumedSegment(
  log: SessionLog,
  config: Record<string, unknown>,
  repaired: readonly LogEvent[],
): void {
  const resumed = log.append({ type: 'session.resumed', data: { config } });
  log.appendBuilt(
    repaired.map((event, index) => ({ ...event, seq: resumed.seq + 1 + index, ts: resumed.ts })),
  );
}
