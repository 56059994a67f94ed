import { gatherEnvironment } from '../actors/environment.ts';
import type { Clock } from '../core/clock.ts';
import type { SessionLog } from '../session/session-log.ts';
import { isEvent, type LogEvent } from '../session/types.ts';
import type { SystemConfig } from './options-schema.ts';

/**
 * One agent's environment block: gathered before the first step of every turn (per turn, not per step:
 * within a turn the model knows what its own tools changed), logged as `environment` only when its text
 * changed, and taken from the log on resume and from the recording on replay, so the system prompt of
 * every request is a function of the log.
 */
export class AgentEnvironment {
  /** The block the system prompt carries now ('' before the first one, or when turned off). */
  text = '';

  constructor(
    private readonly source: SystemConfig['environment'],
    private readonly facts: { cwd: string; model: string; clock: Clock },
  ) {}

  /** Takes the last block a log holds (a resumed or forked session goes on with it). */
  restore(events: readonly LogEvent[]): void {
    const last = events.findLast((event) => isEvent(event, 'environment'));
    this.text = last !== undefined && isEvent(last, 'environment') ? last.data.text : '';
  }

  /**
   * Before the first step of `turn`: the block now (gathered, or recorded for this turn), logged when it
   * differs from the last one. Returns whether it changed. Never throws: git failing is described in it.
   * `signal` aborts when the step is cancelled: `git status` is stopped and nothing is logged.
   */
  async refresh(turn: number, log: SessionLog, signal?: AbortSignal): Promise<boolean> {
    const { source } = this;
    if (source === undefined) return false;
    const text =
      'recorded' in source
        ? recordedFor(source.recorded, turn)
        : await gatherEnvironment({ ...this.facts, now: this.facts.clock.now() }, signal);
    if (text === undefined || text === this.text || signal?.aborted) return false;
    // A turn cancelled while git ran has ended: what it found belongs to no request.
    if (log.events.findLast((event) => event.type === 'turn.end')?.turn === turn) return false;
    log.append({ type: 'environment', turn, step: 1, data: { text } });
    this.text = text;
    return true;
  }
}

function recordedFor(events: readonly LogEvent[], turn: number): string | undefined {
  const found = events.find((event) => isEvent(event, 'environment') && event.turn === turn);
  return found !== undefined && isEvent(found, 'environment') ? found.data.text : undefined;
}
