import type { ModelMessage, ModelRequest, ToolCallRequest, ToolSpec } from '../providers/types.ts';
import { compactionCoverage, isHidden } from './compaction-ranges.ts';
import { outputFeedback } from './typed-turns.ts';
import { isEvent, type LogEvent, type LogEventOf } from './types.ts';

/** The text that opens the user message standing in for a compacted range. */
export const summaryPrefix = '[Summary of earlier conversation]\n';

export type ProjectOptions = { system: string; tools: readonly ToolSpec[] };

type ToolMessage = Extract<ModelMessage, { role: 'tool' }>;
// An assistant message reserves one slot per tool call, filled when (and if) its result shows up.
type Entry = { message: ModelMessage; results?: (ToolMessage | undefined)[] };
type Slot = { entry: Entry; index: number; call: ToolCallRequest };

/**
 * The model request of a step: a pure, deterministic projection of the session log.
 *
 * - `user.message` → a user message (the inbox channel does not matter to the model);
 * - `assistant.message` → an assistant message (an interrupted one keeps its text, loses its calls);
 * - `environment` placed as a message → a user message with the block (an older session's block follows
 *   the system prompt instead, which the caller composes);
 * - `output.checked` that failed → a user message saying why the final answer was not accepted;
 * - `tool.result` → a tool message placed right after its assistant message, in the order of that
 *   message's tool calls; a call with no result yet gets none, and a result that matches no visible
 *   call is dropped (vendors reject orphan results);
 * - `compaction{replaces:[from,to]}` hides the events with seq in [from, to] and puts one summary user
 *   message where the range started. A compaction inside a later compaction's range, or whose whole
 *   range a later one hides, is itself superseded (see `compactionCoverage`).
 *
 * Linear in the log length (plus a log factor in the number of compactions): it runs before every
 * model request. The input is never mutated.
 */
export function project(events: readonly LogEvent[], options: ProjectOptions): ModelRequest {
  const { hidden, summaries } = compactionCoverage(events);
  const names = toolCallNames(events);
  const entries: Entry[] = [];
  // Results attach to the latest assistant message that issued the call id (ids can repeat across steps).
  const slots = new Map<string, Slot>();
  let next = 0;
  for (const event of events) {
    for (; next < summaries.length && (summaries[next]?.from ?? 0) <= event.seq; next++) {
      entries.push({ message: { role: 'user', content: summaryPrefix + (summaries[next]?.text ?? '') } });
    }
    if (isHidden(hidden, event.seq)) continue;
    if (isEvent(event, 'user.message')) {
      entries.push({ message: { role: 'user', content: event.data.content } });
    } else if (isEvent(event, 'assistant.message')) {
      entries.push(assistantEntry(event, slots));
    } else if (isEvent(event, 'environment') && event.data.placement === 'message') {
      entries.push({ message: { role: 'user', content: event.data.text } });
    } else if (isEvent(event, 'output.checked') && !event.data.valid) {
      const why = event.data.error ?? 'it does not match the required schema';
      entries.push({ message: { role: 'user', content: outputFeedback(why) } });
    } else if (isEvent(event, 'tool.result')) {
      const slot = slots.get(event.data.callId);
      if (!slot?.entry.results || slot.entry.results[slot.index]) continue;
      slot.entry.results[slot.index] = {
        role: 'tool',
        callId: event.data.callId,
        name: names.get(event.data.callId) ?? slot.call.name,
        content: event.data.content,
        isError: event.data.outcome !== 'ok',
      };
    }
  }
  for (; next < summaries.length; next++) {
    entries.push({ message: { role: 'user', content: summaryPrefix + (summaries[next]?.text ?? '') } });
  }
  return { system: options.system, tools: options.tools, messages: flatten(entries) };
}

function assistantEntry(event: LogEventOf<'assistant.message'>, slots: Map<string, Slot>): Entry {
  const { text, interrupted, providerParts } = event.data;
  const toolCalls = interrupted
    ? []
    : event.data.toolCalls.map((call) => ({ id: call.id, name: call.name, input: call.input }));
  const message: ModelMessage = { role: 'assistant', text, toolCalls };
  if (providerParts) message.providerParts = providerParts;
  const entry: Entry = { message, results: toolCalls.map(() => undefined) };
  toolCalls.forEach((call, index) => {
    slots.set(call.id, { entry, index, call });
  });
  return entry;
}

function flatten(entries: readonly Entry[]): ModelMessage[] {
  const messages: ModelMessage[] = [];
  for (const entry of entries) {
    messages.push(entry.message);
    for (const result of entry.results ?? []) if (result) messages.push(result);
  }
  return messages;
}

function toolCallNames(events: readonly LogEvent[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const event of events) if (isEvent(event, 'tool.call')) names.set(event.data.callId, event.data.name);
  return names;
}
