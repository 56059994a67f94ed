import type { Clock } from '../core/clock.ts';
import { checkWritable } from './check-writable.ts';
import type { LogEntry } from './types.ts';
import { LOG_FORMAT_VERSION, type LogEvent, type SessionStore } from './types.ts';

export type LogListener = (event: LogEvent) => void;

/**
 * The in-memory head of one session's log, with write-behind to its store. `append` is synchronous and
 * cheap (it runs inside machine actions on the hot path); `flush` is the barrier that makes everything
 * appended so far durable, called before each model request, at turn end and on dispose.
 */
export class SessionLog {
  readonly sessionId: string;
  private readonly store: SessionStore;
  private readonly clock: Clock;
  private readonly all: LogEvent[];
  private unwritten: LogEvent[] = [];
  private writes: Promise<void> = Promise.resolve();
  private readonly listeners = new Set<LogListener>();
  private closed = false;

  constructor(options: {
    sessionId: string;
    store: SessionStore;
    clock: Clock;
    existing?: readonly LogEvent[];
  }) {
    this.sessionId = options.sessionId;
    this.store = options.store;
    this.clock = options.clock;
    this.all = [...(options.existing ?? [])];
  }

  /** Every event of the session so far, durable or not. Do not mutate. */
  get events(): readonly LogEvent[] {
    return this.all;
  }

  append(entry: LogEntry): LogEvent {
    if (this.closed) throw new Error(`session ${this.sessionId} is closed; "${entry.type}" was not written`);
    const event: LogEvent = {
      v: LOG_FORMAT_VERSION,
      seq: this.all.length,
      ts: this.clock.now(),
      type: entry.type,
      ...(entry.turn !== undefined ? { turn: entry.turn } : {}),
      ...(entry.step !== undefined ? { step: entry.step } : {}),
      data: entry.data as Record<string, unknown>,
    };
    this.all.push(event);
    this.unwritten.push(event);
    for (const listener of this.listeners) listener(event);
    return event;
  }

  /** Appends events that were already built (repair output), keeping their seq contiguous. */
  appendBuilt(events: readonly LogEvent[]): void {
    for (const event of events) {
      if (event.seq !== this.all.length)
        throw new Error(`event seq ${event.seq} does not follow ${this.all.length - 1}`);
      this.all.push(event);
      this.unwritten.push(event);
      for (const listener of this.listeners) listener(event);
    }
  }

  /**
   * Resolves when everything appended before the call is in the store. Writes keep their order, and a
   * failed write fails every later flush too (fail-stop): the store keeps a valid prefix of the log
   * rather than a log with a gap, and the runtime ends the turn with the error instead of going on.
   * Every event is checked before the store sees it (`checkWritable`), here rather than in `append`,
   * which runs inside machine actions and must neither throw nor cost much: an event the log could not
   * load again fails the flush with a `LogFormatError`, after the events before it were written.
   */
  flush(): Promise<void> {
    if (this.unwritten.length > 0) {
      const batch = this.unwritten;
      this.unwritten = [];
      this.writes = this.writes.then(() => this.write(batch));
    }
    return this.writes;
  }

  /**
   * Nothing of this log that is not in the store yet is written before `barrier` settles. Mail is made
   * durable in causal order: a recipient's `inbox.queued` never reaches its store before the sender's
   * `message.sent` reached the sender's (then a crash can lose a delivery, which a resume makes again, but
   * never a send that was delivered). A barrier that fails (the sender's store failed) does not stop this
   * log: its own writes fail on their own.
   */
  writeAfter(barrier: Promise<void>): void {
    this.writes = this.writes.then(() => barrier.then(ignore, ignore));
  }

  /** Writes the batch up to its first event that would not load again, then fails with that event's error. */
  private async write(batch: LogEvent[]): Promise<void> {
    let writable = 0;
    let refusal: { error: unknown } | undefined;
    try {
      for (; writable < batch.length; writable++) checkWritable(batch[writable]!);
    } catch (error) {
      refusal = { error };
    }
    if (writable > 0) {
      await this.store.append(this.sessionId, writable === batch.length ? batch : batch.slice(0, writable));
    }
    if (refusal) throw refusal.error;
  }

  /** Flushes, then refuses further appends. */
  async close(): Promise<void> {
    await this.flush();
    this.closed = true;
  }

  subscribe(listener: LogListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

function ignore(): void {
  // Another log's failure is that log's to report.
}
