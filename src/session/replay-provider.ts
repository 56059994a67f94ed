import { z } from 'zod/v4';
import type { Clock } from '../core/clock.ts';
import { clockSchema, must, parseHostValue } from '../core/host-schema.ts';
import { recordedPrices } from '../providers/prices.ts';
import { type ScriptedProvider, type ScriptStep, scripted } from '../providers/scripted.ts';
import type { PromptCacheSetting } from '../providers/types.ts';
import { isEvent, type LogEvent } from './types.ts';

/**
 * The model responses recorded in a session log, one per model request, in order: each failed attempt
 * (`assistant.attempt`, the last one of a step that gave up included) becomes an error of the same kind
 * and retry-after, each `assistant.message` the same text, tool calls, provider parts, citations, usage
 * and stop reason, and each `compaction` the summary the model wrote (a compaction is one model request,
 * answered with its summary and usage). An interrupted message streams its text and then holds until the
 * request is aborted: the cancel that cut it off is an input of the run, not an answer of the model.
 */
export function recordedResponses(events: readonly LogEvent[]): ScriptStep[] {
  const steps: ScriptStep[] = [];
  for (const event of events) {
    if (isEvent(event, 'assistant.attempt')) {
      const { kind, message, retryAfterMs } = event.data.error;
      steps.push({ error: { kind, message, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) } });
    } else if (isEvent(event, 'assistant.message') && event.data.interrupted) {
      // A cancel cut it off: the text streamed so far, then nothing until the replay gives the cancel again.
      steps.push({ text: event.data.text, held: true });
    } else if (isEvent(event, 'assistant.message')) {
      const { text, toolCalls, usage, stopReason, providerParts, citations } = event.data;
      steps.push({
        text,
        toolCalls: toolCalls.map((call) => ({ id: call.id, name: call.name, input: call.input })),
        usage,
        stopReason: stopReason === 'interrupted' ? 'other' : stopReason,
        ...(providerParts ? { providerParts } : {}),
        ...(citations ? { citations } : {}),
      });
    } else if (isEvent(event, 'compaction')) {
      const { summary, usage } = event.data;
      steps.push({ text: summary, ...(usage ? { usage } : {}) });
    }
  }
  return steps;
}

const optionsSchema = z.strictObject(
  { clock: clockSchema.optional(), model: z.string(must('a string')).optional() },
  must('an object'),
);

/**
 * A provider that answers with the responses recorded in `events`, so a session can be re-run through
 * the real runtime without a model, reporting the context window the recording had. With the same inputs,
 * ids and clock the re-run must write the same log byte for byte (see `assertSameLog`).
 */
export function replay(
  events: readonly LogEvent[],
  given: { clock?: Clock; model?: string } = {},
): ScriptedProvider {
  parseHostValue('replay', z.array(z.unknown(), must('an array of log events')), events, 'events');
  const options = parseHostValue('replay', optionsSchema, given);
  const start = events[0];
  const config =
    start && isEvent(start, 'session.start')
      ? (start.data.config as { model?: unknown; contextWindow?: unknown })
      : {};
  const model = options.model ?? (typeof config.model === 'string' ? config.model : 'replay');
  // The recorded window, so automatic compaction happens at the same steps as in the recording.
  const window = config.contextWindow;
  const startConfig = start && isEvent(start, 'session.start') ? start.data.config : {};
  const promptCache = recordedPromptCache(startConfig);
  const prices = recordedPrices(startConfig);
  return scripted(recordedResponses(events), {
    model,
    ...(promptCache !== undefined ? { promptCache } : {}),
    ...(prices !== undefined ? { prices } : {}),
    ...(typeof window === 'number' && Number.isInteger(window) && window > 0
      ? { contextWindow: window }
      : {}),
    ...(options.clock ? { clock: options.clock } : {}),
  });
}

/** The prompt caching a recording's provider said it asked for (`session.start`), if it said so. */
export function recordedPromptCache(config: Record<string, unknown>): PromptCacheSetting | undefined {
  const value = config.promptCache;
  if (value === false) return false;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const entries = Object.entries(value);
  return entries.every(([, field]) => typeof field === 'string')
    ? (Object.fromEntries(entries) as Record<string, string>)
    : undefined;
}
