// What the log says about typed runs (`agent.run(prompt, { output })`): the format a turn's requests ask
// for, the final answer a check reads, and the message a failed check becomes for the model. Pure reads of
// the log, shared by the request builder, the output check and the projection.
import type { OutputFormat } from '../providers/types.ts';
import { isEvent, type LogEvent, type OutputSpec } from './types.ts';

/**
 * The output format of the turn the log is in now: what its `turn.start` asked for, or none (free text,
 * or no turn open). Reads back to the last `turn.start` only.
 */
export function currentOutputFormat(events: readonly LogEvent[]): OutputFormat | undefined {
  for (let index = events.length - 1; index >= 0; index--) {
    const event = events[index]!;
    if (isEvent(event, 'turn.end')) return undefined;
    if (isEvent(event, 'turn.start')) {
      const output = event.data.output;
      return output === undefined ? undefined : { schema: output.schema };
    }
  }
  return undefined;
}

/** The text of the last `assistant.message` of turn `turn`: the final answer a check reads. */
export function finalAnswerOf(events: readonly LogEvent[], turn: number): string | undefined {
  for (let index = events.length - 1; index >= 0; index--) {
    const event = events[index]!;
    if (event.turn !== undefined && event.turn < turn) return undefined;
    if (event.turn === turn && isEvent(event, 'assistant.message')) return event.data.text;
  }
  return undefined;
}

/**
 * Reads a final answer as JSON. Surrounding whitespace is allowed; anything else (prose around the JSON,
 * a code fence) is not JSON, and the check says so to the model. The message names the answer, not the
 * JavaScript engine's parse error, whose wording changes between Node versions.
 */
export function parseAnswer(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    // Not a failure of the check: an answer that is not JSON is refused, and the model is told so.
    const preview = text.length > 80 ? `${text.slice(0, 80)}…` : text;
    return { ok: false, error: `the answer is not JSON: ${JSON.stringify(preview)}` };
  }
}

/** The user message a failed check (`output.checked{ valid: false }`) shows the model. */
export function outputFeedback(error: string): string {
  return (
    `Your final answer was not accepted: ${error}\n` +
    'Give your final answer again, as JSON that matches the required schema and nothing else.'
  );
}

/**
 * The output turn `turn` asks for, as its `turn.start` recorded it, with the typed follow-up it answers and
 * the checks that already failed in it: a resumed turn goes on checking its answers, its retries counted
 * from where it was (`inboxId` is empty when the log does not say whose run it was).
 */
export function outputOfTurn(
  events: readonly LogEvent[],
  turn: number,
): (OutputSpec & { inboxId: string; failures: number }) | undefined {
  const ofTurn = events.filter((event) => event.turn === turn);
  const start = ofTurn.find((event) => isEvent(event, 'turn.start'));
  const output = start && isEvent(start, 'turn.start') ? start.data.output : undefined;
  if (output === undefined) return undefined;
  const claimed = new Set(ofTurn.flatMap((event) => (isEvent(event, 'inbox.claimed') ? event.data.ids : [])));
  const typed = events.find(
    (event) => isEvent(event, 'inbox.queued') && event.data.output && claimed.has(event.data.id),
  );
  const failures = ofTurn.filter((event) => isEvent(event, 'output.checked') && !event.data.valid).length;
  return { ...output, inboxId: typed && isEvent(typed, 'inbox.queued') ? typed.data.id : '', failures };
}
