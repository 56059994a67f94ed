// Pure helpers of the turn's hook waits: the log entries of the `userMessage` and `stop` hooks and the
// follow-ups as the `userMessage` hooks left them.
import type { LogEntry } from '../session/types.ts';
import type { HookTurnEvent, ScreenedMessage } from './hook-events.ts';
import type { InboxItem } from './inbox.ts';
import type { TurnContext } from './turn-types.ts';

/**
 * The `hook.decided` entries of the screened follow-ups. A blocked follow-up is claimed (so it is not
 * queued again on resume) but never becomes a user message.
 */
export function screenedEntries(turn: number, messages: readonly ScreenedMessage[]): LogEntry[] {
  const entries: LogEntry[] = messages.flatMap((message) =>
    message.decisions.map((data): LogEntry => ({ type: 'hook.decided', turn, data })),
  );
  const blocked = messages.filter((message) => message.blocked).map((message) => message.id);
  if (blocked.length > 0) entries.push({ type: 'inbox.claimed', turn, data: { ids: blocked } });
  return entries;
}

/** The follow-ups the turn still answers, as the hooks rewrote them. */
export function screenedFollowups(
  followups: readonly InboxItem[],
  messages: readonly ScreenedMessage[],
): InboxItem[] {
  const byId = new Map(messages.map((message) => [message.id, message]));
  return followups.flatMap((item) => {
    const screened = byId.get(item.id);
    if (screened?.blocked) return [];
    return [screened ? { ...item, message: screened.message } : item];
  });
}

/** The `stop` hooks' decisions, and the refusal's message as the user message that starts another step. */
export function stopEntries(
  context: TurnContext,
  event: Extract<HookTurnEvent, { type: 'hook.stop' }>,
): LogEntry[] {
  const at = { turn: context.turn, step: context.stepCount };
  const entries = event.decisions.map((data): LogEntry => ({ type: 'hook.decided', ...at, data }));
  if (event.refusal !== undefined)
    entries.push({
      type: 'user.message',
      turn: context.turn,
      data: { channel: 'inject', content: event.refusal },
    });
  return entries;
}
