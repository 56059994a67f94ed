import { LogFormatError } from '../errors/log-format-error.ts';
import { assertSessionStarted } from '../session/log-text.ts';
import { parseLoadedEvents } from '../session/schema.ts';
import type { LogEvent, SessionStore } from '../session/types.ts';

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
