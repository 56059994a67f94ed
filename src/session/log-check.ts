// Damage no crash can cause: a log where a tool result answers a call that was never made, or a second
// result answers a call that already had one. A writer that stops at any point leaves calls without a
// result (repair gives them one on resume), never these; so every reader refuses them alike (resume,
// fork, replay, inspect, expectReplay), through `validateSequence`, instead of each one guessing.
import { isEvent, type LogEvent } from './types.ts';

/**
 * What is wrong with the calls and results of `events`, naming the event (`event 14 ("tool.result"): …`),
 * or nothing. Calls are those of an assistant message that was not interrupted and those of `tool.call`
 * events; ids may repeat across steps, and a result answers the latest call with its id.
 */
export function callResultProblem(events: readonly LogEvent[]): string | undefined {
  // For each call id, the seq of the result its latest call got (undefined: none yet).
  const latest = new Map<string, number | undefined>();
  for (const event of events) {
    if (isEvent(event, 'assistant.message')) {
      if (!event.data.interrupted) for (const call of event.data.toolCalls) latest.set(call.id, undefined);
    } else if (isEvent(event, 'tool.call')) {
      // The message's call logged again before it runs (still unanswered), or a call of its own.
      latest.set(event.data.callId, undefined);
    } else if (isEvent(event, 'tool.result')) {
      const { callId } = event.data;
      const where = `event ${event.seq} ("tool.result")`;
      if (!latest.has(callId)) return `${where}: a result for call "${callId}", which no earlier event made`;
      const first = latest.get(callId);
      if (first !== undefined)
        return `${where}: a second result for call "${callId}" (its first is event ${first})`;
      latest.set(callId, event.seq);
    }
  }
  return undefined;
}
