import type { Clock } from '../../core/clock.ts';
import { LogFormatError } from '../../errors/log-format-error.ts';
import { assertSessionStarted } from '../../session/log-text.ts';
import { repair } from '../../session/repair.ts';
import { type ResumePoint, resumePoint, subagentsToLoad } from '../../session/resume-point.ts';
import { parseLoadedEvents } from '../../session/schema.ts';
import type { LogEvent, SessionStore } from '../../session/types.ts';
import type { AgentOrigin } from '../agent-spec.ts';

/**
 * The events of a stored session an agent is about to continue (`resume`) or start from (`fork`). A log
 * this build cannot read, or an empty one (nothing of the agent was recorded, so there is nothing to
 * continue), is refused with a `LogFormatError` naming the session.
 */
export async function loadSession(
  store: SessionStore,
  sessionId: string,
  action: 'resume' | 'fork',
): Promise<LogEvent[]> {
  try {
    const events = parseLoadedEvents(await store.load(sessionId));
    assertSessionStarted(events, 'remove the session to reuse its id');
    return events;
  } catch (error) {
    if (!LogFormatError.isInstance(error)) throw error;
    throw new LogFormatError(`cannot ${action} session "${sessionId}": ${error.message}`, { cause: error });
  }
}

/** How deep resume follows subagents that wait (the `task` tool's own limit is lower). */
const maxChildDepth = 16;

/**
 * Where a stored session continues (`resumePoint`), reading the logs of its subagents that had not finished
 * (and theirs, in turn): a `task` call whose child waits for the outside world waits too. A child log that
 * is missing or unreadable counts as a child that cannot be continued, so its call's outcome is unknown.
 */
export async function loadResumePoint(
  store: SessionStore,
  events: readonly LogEvent[],
  depth = 0,
): Promise<ResumePoint> {
  const children = new Map<string, ResumePoint>();
  if (depth < maxChildDepth) {
    for (const sessionId of subagentsToLoad(events)) {
      const loaded = await store
        .load(sessionId)
        .then((session) => parseLoadedEvents(session))
        // Not rethrown: a child that cannot be read cannot be continued, and its parent's call then gets
        // the `unknown` result that repair gives any call whose outcome was lost.
        .catch((): LogEvent[] => []);
      if (loaded.length > 0) children.set(sessionId, await loadResumePoint(store, loaded, depth + 1));
    }
  }
  return resumePoint(events, children);
}

/**
 * Takes a stored session for a resumed agent: its lock first (a load truncates a torn last line, which
 * must never happen to a log another process is still writing), then its events and where it continues.
 * A turn left waiting (on its tools, or for its background children) is continued, so nothing of it is
 * repaired; otherwise repair closes what is open.
 */
export async function takeStoredSession(
  store: SessionStore,
  clock: Clock,
  sessionId: string,
): Promise<AgentOrigin & { kind: 'resume' }> {
  const lock = await store.lock?.(sessionId);
  try {
    const events = await loadSession(store, sessionId, 'resume');
    const point = await loadResumePoint(store, events);
    const continued = point.kind === 'waiting' || point.kind === 'waitingForAgents';
    const repaired = continued ? [] : repair(events, clock).appended;
    return { kind: 'resume', events, repaired, lock, point };
  } catch (error) {
    await lock?.release();
    throw error;
  }
}
