import { compactionCoverage, isHidden } from './compaction-ranges.ts';
import { isEvent, type LogEvent } from './types.ts';

/** The range of the log a compaction will replace by its summary. */
export type CompactionPlan = { replaces: [number, number] };

export type CompactionPlanOptions = {
  /** Turns kept word for word at the end of the conversation, the running one included (at least 1). */
  keepRecentTurns: number;
};

/** What one pass over the log learns about where a range may end. */
type Scan = {
  /** The seq of the `turn.start` of every turn that holds a message, in order. */
  turnStarts: number[];
  /** Where the group of the latest step that ended begins: the input it claimed, then the step itself. */
  latestStepGroup: number | undefined;
  /** The first user message that no model answer followed: it must stay visible. */
  firstUnanswered: number | undefined;
};

/**
 * Chooses the part of the conversation a compaction replaces: always `[1, to]`, from the first event
 * after `session.start` (so it covers every earlier summary and supersedes it, and one summary stands at
 * the top) to the end of an older part of the log. The end is the first of these that leaves something
 * new to summarise:
 * 1. just before the last `keepRecentTurns` turns (the running turn counts as one);
 * 2. when those turns are themselves the long part, just before the latest step that ended, together
 *    with the input that step claimed: everything the next step builds on stays word for word.
 * A range never splits a tool call from its result, never reaches a user message that no model answer
 * followed (the running turn's input), never ends inside an earlier summary's range, and never holds
 * only what earlier summaries already stand for. Queued input is not part of the conversation until a
 * turn claims it, so no range can hide it. `undefined` means there is nothing older to compact.
 *
 * Pure and linear in the log: it runs once per compaction, not per step.
 */
export function planCompaction(
  events: readonly LogEvent[],
  options: CompactionPlanOptions,
): CompactionPlan | undefined {
  const scan = scanLog(events);
  const { turnStarts } = scan;
  const keep = Math.max(1, options.keepRecentTurns);
  const turnCut = turnStarts.length >= keep ? turnStarts[turnStarts.length - keep] : undefined;
  const stepCut = scan.latestStepGroup;
  const cuts = [turnCut, stepCut !== undefined && stepCut > (turnCut ?? 0) ? stepCut : undefined];
  for (const cut of cuts) {
    if (cut === undefined) continue;
    const to = cut - 1;
    if (to < 1 || (scan.firstUnanswered !== undefined && to >= scan.firstUnanswered)) continue;
    if (splitsCall(events, to) || !summarisesSomethingNew(events, to)) continue;
    return { replaces: [1, to] };
  }
  return undefined;
}

function scanLog(events: readonly LogEvent[]): Scan {
  const turnStarts: number[] = [];
  // A turn counts once it holds a message: a turn that only compacts keeps no conversation.
  let turnStart: number | undefined;
  let groupStart = 1;
  let openGroup: number | undefined;
  let latestStepGroup: number | undefined;
  let firstUnanswered: number | undefined;
  const conversational = () => {
    if (turnStart !== undefined) turnStarts.push(turnStart);
    turnStart = undefined;
  };
  for (const event of events) {
    if (isEvent(event, 'turn.start')) {
      turnStart = event.seq;
      groupStart = event.seq + 1;
    } else if (isEvent(event, 'step.start')) {
      openGroup = groupStart;
    } else if (isEvent(event, 'step.end') || isEvent(event, 'turn.end')) {
      if (isEvent(event, 'step.end') && openGroup !== undefined) latestStepGroup = openGroup;
      openGroup = undefined;
      groupStart = event.seq + 1;
    } else if (isEvent(event, 'user.message')) {
      conversational();
      firstUnanswered ??= event.seq;
    } else if (isEvent(event, 'assistant.message')) {
      conversational();
      if (!event.data.interrupted) firstUnanswered = undefined;
    }
  }
  return { turnStarts, latestStepGroup, firstUnanswered };
}

/**
 * Whether a range ending at `to` would part a tool call from its result: a call inside whose result comes
 * after, is missing, or whose id is issued again before it is answered.
 */
function splitsCall(events: readonly LogEvent[], to: number): boolean {
  const open = new Set<string>();
  for (const event of events) {
    if (isEvent(event, 'assistant.message') && !event.data.interrupted) {
      for (const call of event.data.toolCalls) {
        if (event.seq <= to) open.add(call.id);
        else if (open.has(call.id)) return true;
      }
    } else if (isEvent(event, 'tool.result') && open.delete(event.data.callId) && event.seq > to) {
      return true;
    }
  }
  return open.size > 0;
}

/**
 * Whether `[1, to]` holds every earlier summary's range (so the new summary supersedes them all) and at
 * least one message the model still sees word for word.
 */
function summarisesSomethingNew(events: readonly LogEvent[], to: number): boolean {
  const { hidden, summaries } = compactionCoverage(events);
  if (summaries.some((summary) => summary.to > to)) return false;
  for (const event of events) {
    if (event.seq > to) break;
    if (isHidden(hidden, event.seq)) continue;
    if (isEvent(event, 'user.message') || isEvent(event, 'tool.result')) return true;
    if (isEvent(event, 'assistant.message')) return true;
  }
  return false;
}
