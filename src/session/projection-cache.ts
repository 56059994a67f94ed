import type { ModelMessage, ModelRequest } from '../providers/types.ts';
import { type ProjectOptions, project } from './projection.ts';
import { isEvent, type LogEvent } from './types.ts';

/**
 * `project()` for a log that only grows, at the cost of the new events rather than the whole log.
 *
 * The messages of the events already projected are reused when that projection was closed (every
 * assistant tool call had its result) and the new events stand alone (no compaction, no result for a
 * call made before them). After a compaction that starts at the top of the conversation (the planner's
 * are all such) only the events after its range are projected: everything up to its end is hidden, and
 * every compaction logged before that end is superseded. Otherwise it projects the whole log again.
 * Either way the result equals `project(events, options)` — a test holds it to that on every prefix of
 * generated and recorded logs.
 */
export class ProjectionCache {
  private projected = 0;
  // Never changed once handed out: a new array is made when messages are added.
  private messages: readonly ModelMessage[] = [];
  private closed = false;
  private options: ProjectOptions | undefined;

  project(events: readonly LogEvent[], options: ProjectOptions): ModelRequest {
    const reusable = this.closed && options === this.options && events.length >= this.projected;
    const suffix = reusable ? events.slice(this.projected) : events;
    if (!reusable || !standsAlone(suffix)) {
      const start = afterLatestCompaction(suffix, events);
      return this.remember(
        events,
        options,
        project(start > 0 ? events.slice(start) : events, options).messages,
      );
    }
    const tail = project(suffix, options).messages;
    return this.remember(
      events,
      options,
      tail.length === 0 ? this.messages : this.messages.concat(tail),
      tail,
    );
  }

  private remember(
    events: readonly LogEvent[],
    options: ProjectOptions,
    messages: readonly ModelMessage[],
    added: readonly ModelMessage[] = messages,
  ): ModelRequest {
    this.projected = events.length;
    this.options = options;
    this.messages = messages;
    // The tail decides: the part before it was closed, or the whole log was just projected.
    this.closed = allCallsAnswered(added);
    // One copy of the conversation per step is the only cost that grows with it; the request shares
    // the array (typed readonly) instead of copying it again.
    return { system: options.system, tools: options.tools, messages };
  }
}

/**
 * Where projecting may start: just after the range of the latest compaction in `recent`, when that range
 * starts at the top (seq 1, or 0) and `log` is numbered from 0; else 0, the whole log.
 */
function afterLatestCompaction(recent: readonly LogEvent[], log: readonly LogEvent[]): number {
  for (let index = recent.length - 1; index >= 0; index--) {
    const event = recent[index]!;
    if (!isEvent(event, 'compaction')) continue;
    const [from, to] = event.data.replaces;
    return from <= 1 && log[to]?.seq === to && log[0]?.seq === 0 ? to + 1 : 0;
  }
  return 0;
}

function standsAlone(events: readonly LogEvent[]): boolean {
  const issued = new Set<string>();
  for (const event of events) {
    if (isEvent(event, 'compaction')) return false;
    if (isEvent(event, 'assistant.message')) for (const call of event.data.toolCalls) issued.add(call.id);
    if (isEvent(event, 'tool.result') && !issued.has(event.data.callId)) return false;
  }
  return true;
}

function allCallsAnswered(messages: readonly ModelMessage[]): boolean {
  let open = 0;
  for (const message of messages) {
    if (message.role === 'assistant') open += message.toolCalls.length;
    else if (message.role === 'tool') open--;
  }
  return open === 0;
}
