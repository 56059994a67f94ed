import type { InboxChannel, LogEntry } from '../session/types.ts';

/** A message waiting for a turn (`followup`) or a step (`steer`, `inject`). */
export type InboxItem = { id: string; channel: InboxChannel; message: string };

/** Steer and inject wait for the next step; followup waits for the next turn. */
export function isNextStepItem(item: InboxItem): boolean {
  return item.channel !== 'followup';
}

/** Input for the agent's inbox, as the agent API sends it to the agent chart. */
export type InboxEvent =
  | { type: 'agent.followup'; id: string; message: string }
  | { type: 'agent.steer'; id: string; message: string }
  | { type: 'agent.inject'; id: string; message: string };

const channels = { 'agent.followup': 'followup', 'agent.steer': 'steer', 'agent.inject': 'inject' } as const;

/** The inbox item an inbox event queues. */
export const itemOf = (event: InboxEvent): InboxItem => ({
  id: event.id,
  channel: channels[event.type],
  message: event.message,
});

/** The log entry that records an item as queued, so a restart still has it. */
export const queuedEntry = (item: InboxItem): LogEntry => ({
  type: 'inbox.queued',
  data: { id: item.id, channel: item.channel, message: item.message },
});
