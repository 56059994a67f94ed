import { AgentStateError } from '../errors/agent-state-error.ts';
import type { CompactResult } from '../machines/compaction-types.ts';
import type { SessionLog } from '../session/session-log.ts';
import { isEvent, type LogEvent } from '../session/types.ts';
import { type RunResult, turnResult } from './turn-result.ts';

type Waiter = { resolve: (result: RunResult) => void; reject: (error: Error) => void; turn?: number };

/**
 * The callers of one agent waiting for a turn to end (`run`, `whenTurnEnds`) and for a compaction to
 * settle (`compact`). Each is answered once the log holds the answer durably (after a flush), and every
 * one still waiting is rejected when the agent is disposed.
 */
export class TurnWaiters {
  private readonly waiters = new Map<string, Waiter>();
  private compactions: { resolve: (result: CompactResult) => void; reject: (error: Error) => void }[] = [];

  constructor(private readonly log: SessionLog) {
    log.subscribe((event) => this.settle(event));
  }

  /** Waits for the turn that claims inbox entry `inboxId` to end. */
  forInput(inboxId: string, resolve: Waiter['resolve'], reject: Waiter['reject']): void {
    this.waiters.set(inboxId, { resolve, reject });
  }

  /** Waits for turn `turn` to end: at once (after a flush) when the log already holds its end. */
  forTurn(turn: number, disposed: boolean): Promise<RunResult> {
    const end = this.log.events.findLast((event) => isEvent(event, 'turn.end') && event.turn === turn);
    if (end && isEvent(end, 'turn.end')) {
      const result = turnResult(this.log.events, end);
      return this.log.flush().then(() => result);
    }
    return new Promise((resolve, reject) => {
      if (disposed)
        reject(new AgentStateError(`agent ${this.log.sessionId} was disposed before turn ${turn} ended`));
      // A key no inbox id can take (ids have no `#`), one per call.
      else this.waiters.set(`#turn:${turn}:${this.waiters.size}`, { resolve, reject, turn });
    });
  }

  forCompaction(resolve: (result: CompactResult) => void, reject: (error: Error) => void): void {
    this.compactions.push({ resolve, reject });
  }

  /** Like a run's result, a compaction's is given once the log holds it durably. */
  settleCompaction(result: CompactResult): void {
    const waiters = this.compactions;
    this.compactions = [];
    if (waiters.length === 0) return;
    const flushed = this.log.flush();
    for (const waiter of waiters) flushed.then(() => waiter.resolve(result), waiter.reject);
  }

  /** The agent is gone: every run still waiting is rejected, a pending compaction did not happen. */
  rejectAll(): void {
    for (const [id, waiter] of this.waiters) {
      waiter.reject(
        new AgentStateError(`agent ${this.log.sessionId} was disposed before input ${id} was answered`),
      );
    }
    this.waiters.clear();
    this.settleCompaction({ compacted: false, reason: 'canceled' });
  }

  private settle(event: LogEvent): void {
    if (this.waiters.size === 0) return;
    if (isEvent(event, 'inbox.claimed')) {
      for (const id of event.data.ids) {
        const waiter = this.waiters.get(id);
        if (waiter) waiter.turn = event.turn;
      }
    } else if (isEvent(event, 'inbox.cleared')) {
      // No turn will answer input a cancel cleared: its caller learns so instead of waiting for ever.
      const flushed = this.log.flush();
      for (const id of event.data.ids) {
        const waiter = this.waiters.get(id);
        if (!waiter) continue;
        this.waiters.delete(id);
        const error = new AgentStateError(
          `input ${id} of agent ${this.log.sessionId} was cleared by agent.cancel({ clearInbox: true }) before a turn answered it`,
        );
        flushed.then(() => waiter.reject(error), waiter.reject);
      }
    } else if (isEvent(event, 'turn.end')) {
      const result = turnResult(this.log.events, event);
      const flushed = this.log.flush();
      for (const [id, waiter] of this.waiters) {
        if (waiter.turn !== event.turn) continue;
        this.waiters.delete(id);
        flushed.then(() => waiter.resolve(result), waiter.reject);
      }
    }
  }
}
