import type { InboxChannel, LogEntry, OutputSpec } from '../session/types.ts';

/**
 * A message waiting for a turn (`followup`) or a step (`steer`, `inject`); a typed run's follow-up carries
 * the output its turn must end with.
 */
export type InboxItem = { id: string; channel: InboxChannel; message: string; output?: OutputSpec };

/** Steer and inject wait for the next step; followup waits for the next turn. */
export function isNextStepItem(item: InboxItem): boolean {
  return item.channel !== 'followup';
}

/** Input for the agent's inbox, as the agent API sends it to the agent chart. */
export type InboxEvent =
  | { type: 'agent.followup'; id: string; message: string; output?: OutputSpec }
  | { type: 'agent.steer'; id: string; message: string }
  | { type: 'agent.inject'; id: string; message: string };

const channels = { 'agent.followup': 'followup', 'agent.steer': 'steer', 'agent.inject': 'inject' } as const;

/** The inbox item an inbox event queues. */
export const itemOf = (event: InboxEvent): InboxItem => ({
  id: event.id,
  channel: channels[event.type],
  message: event.message,
  ...(event.type === 'agent.followup' && event.output ? { output: event.output } : {}),
});

/** The log entry that records an item as queued, so a restart still has it. */
export const queuedEntry = (item: InboxItem): LogEntry => ({
  type: 'inbox.queued',
  data: {
    id: item.id,
    channel: item.channel,
    message: item.message,
    ...(item.output ? { output: item.output } : {}),
  },
});

/**
 * The queued input a turn takes: everything, except that a typed follow-up ends what the turn takes of the
 * follow-ups (the one after it waits for the next turn), so no turn answers two output formats.
 */
export function takenByTurn(inbox: readonly InboxItem[]): InboxItem[] {
  const typed = inbox.findIndex((item) => item.channel === 'followup' && item.output !== undefined);
  if (typed === -1) return [...inbox];
  return inbox.filter((item, index) => index <= typed || item.channel !== 'followup');
}
