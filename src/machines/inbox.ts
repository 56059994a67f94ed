import type { LogEntry, LogEventData, MailKind, OutputSpec } from '../session/types.ts';

/**
 * A message waiting for a turn (`followup`) or a step (`steer`, `inject`): what its `inbox.queued` logged,
 * mail's sender and kind and a typed run's output included.
 */
export type InboxItem = LogEventData['inbox.queued'];

/** Steer and inject wait for the next step; followup waits for the next turn. */
export function isNextStepItem(item: InboxItem): boolean {
  return item.channel !== 'followup';
}

/** Input for the agent's inbox, as the agent API sends it to the agent chart. */
export type InboxEvent =
  | { type: 'agent.followup'; id: string; message: string; output?: OutputSpec }
  | { type: 'agent.steer'; id: string; message: string }
  | { type: 'agent.inject'; id: string; message: string };

/**
 * Mail from another agent of the tree (see `message.sent`): read at the next step like a steer, and like
 * one it wakes an idle agent. `id` is the sender's message id, so a resume can tell it was delivered.
 */
export type MailEvent = { type: 'agent.mail'; id: string; from: string; kind: MailKind; message: string };

const channels = { 'agent.followup': 'followup', 'agent.steer': 'steer', 'agent.inject': 'inject' } as const;

/** The inbox item an inbox event (or mail) queues. */
export const itemOf = (event: InboxEvent | MailEvent): InboxItem => {
  if (event.type === 'agent.mail')
    return { id: event.id, channel: 'steer', message: event.message, from: event.from, kind: event.kind };
  return {
    id: event.id,
    channel: channels[event.type],
    message: event.message,
    ...(event.type === 'agent.followup' && event.output ? { output: event.output } : {}),
  };
};

/** The log entry that records an item as queued, so a restart still has it. */
export const queuedEntry = (item: InboxItem): LogEntry => ({
  type: 'inbox.queued',
  data: {
    id: item.id,
    channel: item.channel,
    message: item.message,
    ...(item.from !== undefined ? { from: item.from } : {}),
    ...(item.kind !== undefined ? { kind: item.kind } : {}),
    ...(item.output ? { output: item.output } : {}),
  },
});

/** The senders whose final results are among `items` (the turn has heard from them). */
export const resultSenders = (items: readonly InboxItem[]): string[] =>
  items.flatMap((item) => (item.kind === 'result' && item.from !== undefined ? [item.from] : []));

/**
 * The queued input a turn takes: everything, except that a typed follow-up ends what the turn takes of the
 * follow-ups (the one after it waits for the next turn), so no turn answers two output formats.
 */
export function takenByTurn(inbox: readonly InboxItem[]): InboxItem[] {
  const typed = inbox.findIndex((item) => item.channel === 'followup' && item.output !== undefined);
  if (typed === -1) return [...inbox];
  return inbox.filter((item, index) => index <= typed || item.channel !== 'followup');
}
