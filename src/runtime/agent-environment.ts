import { gatherEnvironment } from '../actors/environment.ts';
import type { Clock } from '../core/clock.ts';
import { compactionCoverage, isHidden } from '../session/compaction-ranges.ts';
import type { SessionLog } from '../session/session-log.ts';
import { isEvent, type LogEvent, type LogEventData } from '../session/types.ts';
import type { SystemConfig } from './options-schema.ts';

/**
 * One agent's environment block: gathered before the first step of every turn (per turn, not per step:
 * within a turn the model knows what its own tools changed), logged as `environment` when its text
 * changed or a compaction hid the last one, and taken from the log on resume and from the recording on
 * replay, so every request is a function of the log.
 *
 * A block is a user message where it was logged (`placement: 'message'`): the system prompt stays as the
 * session started, so each request keeps the previous one's prefix and reads it from the vendor's cache.
 * A session recorded before carried its block after the system prompt; it goes on doing so.
 */
export class AgentEnvironment {
  /** The last block logged ('' before the first one, or when turned off). */
  text = '';
  /** Where the last block goes: into the messages, or after the system prompt (older sessions). */
  private placement: 'message' | 'system' = 'message';

  constructor(
    private readonly source: SystemConfig['environment'],
    private readonly facts: { cwd: string; model: string; clock: Clock },
  ) {}

  /** What follows the system prompt: an older session's block, or nothing. */
  get systemText(): string {
    return this.placement === 'system' ? this.text : '';
  }

  /** Takes the last block a log holds (a resumed or forked session goes on with it). */
  restore(events: readonly LogEvent[]): void {
    const last = events.findLast((event) => isEvent(event, 'environment'));
    if (last === undefined || !isEvent(last, 'environment')) return;
    this.text = last.data.text;
    this.placement = last.data.placement ?? 'system';
  }

  /**
   * Before the first step of `turn`: the block now (gathered, or recorded for this turn), logged when it
   * differs from the last one or the last one was compacted away (as the recording did, on replay).
   * Returns whether the system prompt changed (only an older session's can). Never throws: git failing
   * is described in the block. `signal` aborts when the step is cancelled: `git status` is stopped and
   * nothing is logged.
   */
  async refresh(turn: number, log: SessionLog, signal?: AbortSignal): Promise<boolean> {
    const { source } = this;
    if (source === undefined) return false;
    let data: LogEventData['environment'] | undefined;
    if ('recorded' in source) {
      data = recordedFor(source.recorded, turn);
    } else {
      const text = await gatherEnvironment({ ...this.facts, now: this.facts.clock.now() }, signal);
      const wanted = text !== this.text || (this.placement === 'message' && lastBlockHidden(log.events));
      if (wanted) data = this.placement === 'message' ? { text, placement: 'message' } : { text };
    }
    if (data === undefined || signal?.aborted) return false;
    // A turn cancelled while git ran has ended: what it found belongs to no request.
    if (log.events.findLast((event) => event.type === 'turn.end')?.turn === turn) return false;
    log.append({ type: 'environment', turn, step: 1, data });
    this.text = data.text;
    this.placement = data.placement ?? 'system';
    return this.placement === 'system';
  }
}

/** The recording's block of `turn`, as it was logged (a replay logs what the recording did). */
function recordedFor(events: readonly LogEvent[], turn: number): LogEventData['environment'] | undefined {
  const found = events.find((event) => isEvent(event, 'environment') && event.turn === turn);
  return found !== undefined && isEvent(found, 'environment') ? found.data : undefined;
}

/** Whether a compaction hid the last block logged: the model no longer reads it. */
function lastBlockHidden(events: readonly LogEvent[]): boolean {
  const last = events.findLast((event) => isEvent(event, 'environment'));
  if (last === undefined) return false;
  return isHidden(compactionCoverage(events).hidden, last.seq);
}
