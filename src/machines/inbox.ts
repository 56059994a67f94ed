import type { InboxChannel } from '../session/types.ts';

/** A message waiting for a turn (`followup`) or a step (`steer`, `inject`). */
export type InboxItem = { id: string; channel: InboxChannel; message: string };

/** Steer and inject wait for the next step; followup waits for the next turn. */
export function isNextStepItem(item: InboxItem): boolean {
  return item.channel !== 'followup';
}
