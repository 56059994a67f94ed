// What the logs of a tree say about its background children and the mail between them: which children an
// agent started in the background (and with what), and which sent mail the recipient's log does not hold.
// Pure: a resume reads these to deliver what a crash left in flight, exactly once (by message id).
import {
  isEvent,
  type LogEvent,
  type LogEventData,
  type LogEventOf,
  type OutputSpec,
  type StopReason,
  type SupervisionSpec,
} from './types.ts';

/** A background child as its parent's log records it: the link and the `spawn_agent` call that made it. */
export type BackgroundSpawn = {
  childId: string;
  callId: string;
  wait: boolean;
  /** The call's input: `prompt`, `agent_type`, `description` (what the model asked for). */
  prompt: string;
  agentType: string | undefined;
  description: string;
  /** The output of a typed child (its agent type's), as the link recorded it. */
  output: OutputSpec | undefined;
  /** How the child is supervised, as the link recorded it (absent: never restarted). */
  supervision: SupervisionSpec | undefined;
};

/** The background children `events` (a parent's log) started, in the order it started them. */
export function backgroundSpawns(events: readonly LogEvent[]): BackgroundSpawn[] {
  const calls = new Map<string, Record<string, unknown>>();
  const spawns: BackgroundSpawn[] = [];
  for (const event of events) {
    if (isEvent(event, 'tool.call') && isObject(event.data.input))
      calls.set(event.data.callId, event.data.input);
    if (!isEvent(event, 'agent.spawned') || event.data.background !== true) continue;
    const input = calls.get(event.data.callId) ?? {};
    const prompt = typeof input.prompt === 'string' ? input.prompt : '';
    spawns.push({
      childId: event.data.childSessionId,
      callId: event.data.callId,
      wait: event.data.wait !== false,
      prompt,
      agentType: typeof input.agent_type === 'string' ? input.agent_type : undefined,
      description:
        typeof input.description === 'string' ? input.description : prompt.split('\n')[0]!.slice(0, 60),
      output: event.data.output,
      supervision: event.data.supervision,
    });
  }
  return spawns;
}

/**
 * The restarts of background child `childId` its parent's log (`events`) decided, and the last of them; and
 * how many of them the child's own log (`childEvents`) says were carried out (`session.restarted`).
 */
export function restartsOf(
  events: readonly LogEvent[],
  childId: string,
  childEvents: readonly LogEvent[],
): { decided: number; done: number; last: LogEventOf<'agent.restarted'> | undefined } {
  let decided = 0;
  let last: LogEventOf<'agent.restarted'> | undefined;
  for (const event of events)
    if (isEvent(event, 'agent.restarted') && event.data.childSessionId === childId) {
      decided++;
      last = event;
    }
  const done = childEvents.filter((event) => isEvent(event, 'session.restarted')).length;
  return { decided, done, last };
}

/** One `message.sent` of a log, with its sender. */
export type SentMail = LogEventData['message.sent'] & { from: string };

/**
 * The mail `sender` sent to `recipient` (per `senderEvents`) that `recipientEvents` has no `inbox.queued`
 * for, in the order it was sent: what a resume delivers.
 */
export function undeliveredMail(
  sender: { id: string; events: readonly LogEvent[] },
  recipient: { id: string; events: readonly LogEvent[] },
): SentMail[] {
  const received = new Set<string>();
  for (const event of recipient.events) if (isEvent(event, 'inbox.queued')) received.add(event.data.id);
  return sender.events.flatMap((event) =>
    isEvent(event, 'message.sent') && event.data.to === recipient.id && !received.has(event.data.id)
      ? [{ ...event.data, from: sender.id }]
      : [],
  );
}

/** The final result a background child sent its parent, if its log has it. */
export function sentResult(events: readonly LogEvent[]): { reason: StopReason; text: string } | undefined {
  for (const event of events)
    if (isEvent(event, 'message.sent') && event.data.kind === 'result')
      return { reason: event.data.reason ?? 'completed', text: event.data.text };
  return undefined;
}

/** Whether the child's parent asked it to stop (`cancel.requested{ by: 'parent' }`). */
export function stoppedByParent(events: readonly LogEvent[]): boolean {
  return events.some((event) => isEvent(event, 'cancel.requested') && event.data.by === 'parent');
}

/** The tool names a session was offered when it started (its `session.start` config). */
export function offeredToolNames(events: readonly LogEvent[]): string[] {
  const start = events[0];
  if (!start || !isEvent(start, 'session.start')) return [];
  const tools = start.data.config.tools;
  if (!Array.isArray(tools)) return [];
  return tools.flatMap((tool: { name?: unknown }) => (typeof tool?.name === 'string' ? [tool.name] : []));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
