import { customAlphabet } from 'nanoid';

/**
 * The only source of time for the runtime. Contract: `now()` is a finite number, monotonic
 * non-decreasing. A host clock is guarded: a `now()` that returns anything else (or throws) counts as
 * the last good time, and a timer fires at most once, never after its cancel.
 */
export interface Clock {
  now(): number;
  /** Calls `callback` after `ms` of this clock's time; returns a cancel function. */
  setTimer(callback: () => void, ms: number): () => void;
}

/**
 * The only source of ids. Contract: returns a fresh id of 1-128 letters, digits, ".", "_" or "-" on
 * every call (ids name session files). Anything else is a `ConfigError` at the call that needed the id.
 */
export type IdGenerator = () => string;

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(callback, ms) {
    const handle = setTimeout(callback, ms);
    return () => clearTimeout(handle);
  },
};

// Letters and digits only: nanoid's default alphabet has `-`, and an id that begins with one
// (`-FjAw…`) is read as an option by every CLI that is given it (`agentchart resume -FjAw…`).
const idAlphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const newId = customAlphabet(idAlphabet, 22);

export const defaultIds: IdGenerator = () => newId();

/**
 * A clock whose time moves only when a test says so. Timers fire in due order as `advance` passes them,
 * so retry backoff and scripted delays run without real waiting.
 */
export class SimulatedClock implements Clock {
  private time: number;
  private timers: { due: number; order: number; callback: () => void }[] = [];
  private order = 0;

  constructor(start = 0) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  setTimer(callback: () => void, ms: number): () => void {
    const timer = { due: this.time + Math.max(0, ms), order: this.order++, callback };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((t) => t !== timer);
    };
  }

  /** Moves time forward by `ms`, firing every timer that falls due, in order. */
  advance(ms: number): void {
    const target = this.time + ms;
    for (;;) {
      const next = this.nextDue();
      if (!next || next.due > target) break;
      this.timers = this.timers.filter((t) => t !== next);
      this.time = Math.max(this.time, next.due);
      next.callback();
    }
    this.time = target;
  }

  /** Jumps to the next pending timer and fires it; returns false when none is pending. */
  runNext(): boolean {
    const next = this.nextDue();
    if (!next) return false;
    this.advance(next.due - this.time);
    return true;
  }

  get pendingTimers(): number {
    return this.timers.length;
  }

  private nextDue() {
    let best: (typeof this.timers)[number] | undefined;
    for (const t of this.timers)
      if (!best || t.due < best.due || (t.due === best.due && t.order < best.order)) best = t;
    return best;
  }
}
