import { AgentchartError, hasMarker } from './agentchart-error.ts';

const marker = Symbol.for('agentchart.error.ReplayDivergenceError');

/**
 * One field in which the replayed event differs from the recorded one. `path` is written from the event's
 * top (`data.content`, `data.config.tools`, `ts`); values are JSON, long strings shortened around their
 * first difference. In a list of named entries (tools) an entry is `added` or `removed` by its name.
 */
export type DivergenceChange =
  | { path: string; change: 'changed'; recorded: string; replayed: string }
  | { path: string; change: 'added'; replayed: string }
  | { path: string; change: 'removed'; recorded: string };

/** What a replay check found at the first differing event: the report for a person and for CI (`--json`). */
export type DivergenceReport = {
  /**
   * The subagent whose log diverged, when it was not the recording's own (a tree replays every child from
   * its log): its session id.
   */
  sessionId?: string;
  /** The first seq at which the logs differ. */
  seq: number;
  /** The recorded event's type there (undefined past the recording's end). */
  recordedType: string | undefined;
  /** The replayed event's type there (undefined past the replay's end). */
  replayedType: string | undefined;
  /** One line of why, in the log's terms: `read_file answered differently`. */
  reason: string;
  /** The fields that differ, in event order (the first 20). */
  changes: DivergenceChange[];
  /** How many more fields differ than `changes` lists, when there are more. */
  moreChanges?: number;
  /** Why the replay stopped before the recording's end, when it did. */
  stopped?: string;
  /** The whole recorded line, as the file has it. */
  recorded: string | undefined;
  /** The whole replayed line, as the file store would write it. */
  replayed: string | undefined;
};

/**
 * A replayed run wrote a log that differs from the recorded one. It carries the report of the first
 * difference: `seq`, the event types, a field-level diff (`changes`), one line of `reason`, and both
 * whole lines (`expected` recorded, `actual` replayed). `toJSON()` is the report as `--json` prints it.
 *
 * @example
 * if (ReplayDivergenceError.isInstance(error)) console.log(error.seq, error.reason, error.changes);
 */
export class ReplayDivergenceError extends AgentchartError<'replay_divergence'> {
  readonly [marker] = true;
  /** The subagent session whose log diverged (undefined: the recording's own log). */
  readonly sessionId: string | undefined;
  readonly seq: number;
  readonly recordedType: string | undefined;
  readonly replayedType: string | undefined;
  readonly reason: string;
  readonly changes: readonly DivergenceChange[];
  /** How many more fields differ than `changes` lists (0 when it lists them all). */
  readonly moreChanges: number;
  readonly stopped: string | undefined;
  /** The recorded line (undefined past the recording's end). */
  readonly expected: string | undefined;
  /** The replayed line (undefined past the replay's end). */
  readonly actual: string | undefined;

  constructor(report: DivergenceReport) {
    super('replay_divergence', divergenceMessage(report));
    this.name = 'ReplayDivergenceError';
    this.sessionId = report.sessionId;
    this.seq = report.seq;
    this.recordedType = report.recordedType;
    this.replayedType = report.replayedType;
    this.reason = report.reason;
    this.changes = report.changes;
    this.moreChanges = report.moreChanges ?? 0;
    this.stopped = report.stopped;
    this.expected = report.recorded;
    this.actual = report.replayed;
  }

  /** The report, as `agentchart replay --check --json` prints it. */
  toJSON(): DivergenceReport {
    return {
      ...(this.sessionId !== undefined ? { sessionId: this.sessionId } : {}),
      seq: this.seq,
      recordedType: this.recordedType,
      replayedType: this.replayedType,
      reason: this.reason,
      changes: [...this.changes],
      ...(this.moreChanges > 0 ? { moreChanges: this.moreChanges } : {}),
      ...(this.stopped !== undefined ? { stopped: this.stopped } : {}),
      recorded: this.expected,
      replayed: this.actual,
    };
  }

  static override isInstance(value: unknown): value is ReplayDivergenceError {
    return hasMarker(value, marker);
  }
}

/** `data.content: "…old…" → "…new…"`, `data.config.tools: + task`, `data.reason: - "…"`. */
export function formatChange(change: DivergenceChange): string {
  if (change.change === 'added') return `${change.path}: + ${change.replayed}`;
  if (change.change === 'removed') return `${change.path}: - ${change.recorded}`;
  return `${change.path}: ${change.recorded} → ${change.replayed}`;
}

function divergenceMessage(report: DivergenceReport): string {
  const type = report.recordedType ?? report.replayedType ?? 'event';
  return [
    `${report.sessionId !== undefined ? `subagent session "${report.sessionId}": ` : ''}replay diverged at seq ${report.seq} (${type}): ${report.reason}`,
    ...report.changes.map((change) => `  ${formatChange(change)}`),
    ...(report.moreChanges ? [`  … and ${report.moreChanges} more fields`] : []),
    // Past the replay's end the reason is the stop itself; elsewhere the stop is said besides.
    ...(report.stopped !== undefined && report.replayedType !== undefined
      ? [`  (the replay stopped early: ${report.stopped})`]
      : []),
  ].join('\n');
}
