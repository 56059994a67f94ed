// A replayed session's model waits for the mail its recording had received before each answer: in the
// recording another agent's message or result came at some point of a step (`inbox.queued` naming a
// sender), and the replay gives it there only once the sender has sent it again. Until the log holds it,
// the recorded answer that follows it is not given, so the mail lands at the recorded seq.
import type { ModelEvent, ModelRequest, Provider } from '../providers/types.ts';
import type { SessionLog } from '../session/session-log.ts';
import { isEvent, type LogEvent } from '../session/types.ts';
import { logReaches } from './recorded-results.ts';

/** The log events that answer one model request (what `recordedResponses` reads back). */
function isResponse(event: LogEvent): boolean {
  return (
    event.type === 'assistant.attempt' || event.type === 'assistant.message' || event.type === 'compaction'
  );
}

/**
 * How long the log must be before the recorded answer `k` (0-based) is given: just past the last mail
 * the recording received before that answer (0 when none).
 */
export function mailBeforeAnswer(recorded: readonly LogEvent[], k: number): number {
  let answers = 0;
  let after = 0;
  for (const [index, event] of recorded.entries()) {
    if (isResponse(event) && answers++ === k) return after;
    if (isEvent(event, 'inbox.queued') && event.data.from !== undefined) after = index + 1;
  }
  return after;
}

/**
 * `provider` as a replayed session with background mail uses it: each request first waits until the
 * session's log (`log`, once it is open) holds the mail its recording received before that answer. A
 * recording without mail is answered as before.
 */
export function mailGatedModel(
  provider: Provider,
  recorded: readonly LogEvent[],
  log: () => SessionLog | undefined,
): Provider {
  if (!recorded.some((event) => isEvent(event, 'inbox.queued') && event.data.from !== undefined))
    return provider;
  const { name, model, contextWindow, promptCache, prices } = provider;
  return {
    name,
    model,
    ...(contextWindow !== undefined ? { contextWindow } : {}),
    ...(promptCache !== undefined ? { promptCache } : {}),
    ...(prices !== undefined ? { prices } : {}),
    stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent> {
      const live = log();
      if (!live) return provider.stream(request, signal);
      const answered = live.events.filter(isResponse).length;
      const length = mailBeforeAnswer(recorded, answered);
      return afterMail(live, length, signal, () => provider.stream(request, signal));
    },
  };
}

async function* afterMail(
  log: SessionLog,
  length: number,
  signal: AbortSignal,
  stream: () => AsyncIterable<ModelEvent>,
): AsyncGenerator<ModelEvent> {
  await logReaches(log, length, signal);
  yield* stream();
}
