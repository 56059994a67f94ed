import type { Clock } from '../core/clock.ts';
import type { LogEvent } from '../session/types.ts';

/**
 * The clock of a replay: it reads the time each event was recorded at. `now()` is the `ts` of the event
 * the replayed log will write next (the last recorded time past the end), so every event is stamped as
 * it was. Timers wait until the driver fires them (`fireNext`) when the runtime has nothing else to
 * do, and only those due by the time of the next recorded event: a retry backoff takes no real time, and
 * a tool's timeout does not fire early while the tool is still doing real I/O.
 */
export class ReplayClock implements Clock {
  private timers: { due: number; order: number; callback: () => void }[] = [];
  private order = 0;
  private readonly timerListeners = new Set<() => void>();

  constructor(
    private readonly recorded: readonly LogEvent[],
    /** How many events the replayed log holds now. */
    private readonly written: () => number,
  ) {}

  now(): number {
    const next = this.recorded[this.written()] ?? this.recorded.at(-1);
    return next?.ts ?? 0;
  }

  setTimer(callback: () => void, ms: number): () => void {
    // A timer counts from the time of the last event written, the moment the runtime asked for it.
    const last = this.recorded[this.written() - 1] ?? this.recorded[0];
    const timer = { due: (last?.ts ?? 0) + Math.max(0, ms), order: this.order++, callback };
    this.timers.push(timer);
    for (const listener of [...this.timerListeners]) listener();
    return () => {
      this.timers = this.timers.filter((candidate) => candidate !== timer);
    };
  }

  /** Tells `listener` each time the runtime sets a timer (a replay waits for that, not for time). */
  onTimerSet(listener: () => void): () => void {
    this.timerListeners.add(listener);
    return () => this.timerListeners.delete(listener);
  }

  /** Fires the timer due first if it is due by `now()`; false when none is. */
  fireNext(): boolean {
    const next = this.timers.reduce<(typeof this.timers)[number] | undefined>(
      (first, timer) =>
        !first || timer.due < first.due || (timer.due === first.due && timer.order < first.order)
          ? timer
          : first,
      undefined,
    );
    if (!next || next.due > this.now()) return false;
    this.timers = this.timers.filter((timer) => timer !== next);
    next.callback();
    return true;
  }
}
