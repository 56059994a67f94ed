import type { Usage } from '../providers/types.ts';
import { isEvent, type LogEvent } from './types.ts';

/**
 * How much of the context window a request filled, as its provider reported it: the input tokens plus
 * the tokens read from and written to the prompt cache (vendors count cached input apart).
 */
export function contextTokens(usage: Usage): number {
  return usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
}

/** Where the log leaves the context: what the last answered request used, and whether a compaction followed it. */
export type LastContextUse = { usedTokens: number; compactedSince: boolean };

/**
 * What a resumed agent knows about its context: the tokens of the last answered model request of a step
 * (an interrupted message carries no usage and does not count), 0 when there was none, and whether a
 * compaction was logged after it (then the count is stale and the next request will tell).
 */
export function lastContextUse(events: readonly LogEvent[]): LastContextUse {
  let compactedSince = false;
  for (let index = events.length - 1; index >= 0; index--) {
    const event = events[index]!;
    if (isEvent(event, 'compaction')) compactedSince = true;
    if (isEvent(event, 'assistant.message') && !event.data.interrupted) {
      return { usedTokens: contextTokens(event.data.usage), compactedSince };
    }
  }
  return { usedTokens: 0, compactedSince };
}
