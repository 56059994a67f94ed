import { isEvent, type LogEvent, type LogEventOf } from './types.ts';

/** An inclusive range of seq numbers. */
export type SeqRange = { from: number; to: number };

/** The summary of one active compaction and where it stands in the conversation. */
export type ActiveSummary = { from: number; to: number; seq: number; text: string };

/** What the compactions of a log do to the conversation: the seq ranges hidden and the summaries shown. */
export type CompactionCoverage = {
  /** Sorted, disjoint, merged. */
  hidden: SeqRange[];
  /** Sorted by where they stand (`from`), then by when they were written. */
  summaries: ActiveSummary[];
};

const nothingCompacted: CompactionCoverage = { hidden: [], summaries: [] };

/**
 * Which compactions of a log count. Later compactions win: one is superseded when a later active one
 * hides its own event (its summary was summarised again) or everything it would hide (its summary would
 * only repeat what the later summary already stands for). The planner relies on the second rule: each
 * new compaction starts at the top of the conversation and reaches past the ranges before it, so exactly
 * one summary is active at a time.
 */
export function compactionCoverage(events: readonly LogEvent[]): CompactionCoverage {
  const compactions: LogEventOf<'compaction'>[] = [];
  for (const event of events) if (isEvent(event, 'compaction')) compactions.push(event);
  if (compactions.length === 0) return nothingCompacted;
  const summaries: ActiveSummary[] = [];
  let hidden: SeqRange[] = [];
  for (let index = compactions.length - 1; index >= 0; index--) {
    const compaction = compactions[index]!;
    const [from, to] = compaction.data.replaces;
    if (isHidden(hidden, compaction.seq) || covers(hidden, from, to)) continue;
    summaries.push({ from, to, seq: compaction.seq, text: compaction.data.summary });
    hidden = mergeRanges([...hidden, { from, to }]);
  }
  summaries.sort((a, b) => a.from - b.from || a.seq - b.seq);
  return { hidden, summaries };
}

function mergeRanges(ranges: readonly SeqRange[]): SeqRange[] {
  const sorted = [...ranges].sort((a, b) => a.from - b.from);
  const merged: SeqRange[] = [];
  for (const range of sorted) {
    const last = merged[merged.length - 1];
    if (last && range.from <= last.to + 1) last.to = Math.max(last.to, range.to);
    else merged.push({ ...range });
  }
  return merged;
}

/** Whether one of the merged ranges holds all of [from, to]. */
function covers(ranges: readonly SeqRange[], from: number, to: number): boolean {
  return ranges.some((range) => range.from <= from && to <= range.to);
}

/** Binary search in sorted, disjoint ranges. */
export function isHidden(ranges: readonly SeqRange[], seq: number): boolean {
  let low = 0;
  let high = ranges.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const range = ranges[middle];
    if (!range) return false;
    if (seq < range.from) high = middle - 1;
    else if (seq > range.to) low = middle + 1;
    else return true;
  }
  return false;
}
