// A session store for graph tests that holds create/append/remove until the test lets them through, so
// states that only wait on the store (creating.session, creating.tools, rollingBack, a turn's ending,
// disposing.quiescing/flushing) can be observed and receive outside events.

import { memoryStore } from '../../../src/session/memory-store.ts';
import type { LoadedSession, LogEvent, SessionStore } from '../../../src/session/types.ts';

export type StoreOp = 'create' | 'append' | 'remove';

/** A memory store whose create/append/remove wait while held, and can be released or failed one by one. */
export class GateStore implements SessionStore {
  readonly kind = 'gate';
  private readonly inner = memoryStore();
  private readonly holding = new Set<StoreOp>();
  private waiting: { op: StoreOp; resolve: () => void; reject: (error: Error) => void }[] = [];
  private arrivals: { op: StoreOp; resolve: () => void }[] = [];
  /** Every write that reached the store (held or not), in call order. */
  readonly writes: StoreOp[] = [];

  /** Holds exactly `ops` from now on (calls already waiting stay waiting). */
  holdOnly(ops: Iterable<StoreOp>): void {
    this.holding.clear();
    for (const op of ops) this.holding.add(op);
  }

  pending(op: StoreOp): number {
    return this.waiting.filter((entry) => entry.op === op).length;
  }

  /** Lets the waiting `op` calls through, first waiting for one to arrive (the runtime may still be on its way). */
  async release(op: StoreOp): Promise<void> {
    await this.arrival(op);
    for (const entry of this.take(op)) entry.resolve();
  }

  async fail(op: StoreOp, error: Error): Promise<void> {
    await this.arrival(op);
    for (const entry of this.take(op)) entry.reject(error);
  }

  /**
   * Lets everything through while `during` runs, then holds what was held before. A tool call writes
   * the log ahead of running, so a test that holds appends must open them while it waits for a tool.
   */
  async whileOpen<T>(during: () => Promise<T>): Promise<T> {
    const saved = [...this.holding];
    this.open();
    try {
      return await during();
    } finally {
      this.holdOnly(saved);
    }
  }

  /** Stops holding and lets every waiting call through. */
  open(): void {
    this.holding.clear();
    for (const entry of this.waiting.splice(0)) entry.resolve();
  }

  async create(sessionId: string): Promise<void> {
    this.writes.push('create');
    await this.gate('create');
    return this.inner.create(sessionId);
  }

  async append(sessionId: string, events: readonly LogEvent[]): Promise<void> {
    this.writes.push('append');
    await this.gate('append');
    return this.inner.append(sessionId, events);
  }

  async remove(sessionId: string): Promise<void> {
    this.writes.push('remove');
    await this.gate('remove');
    return this.inner.remove(sessionId);
  }

  load(sessionId: string): Promise<LoadedSession> {
    return this.inner.load(sessionId);
  }

  exists(sessionId: string): Promise<boolean> {
    return this.inner.exists(sessionId);
  }

  list(): Promise<string[]> {
    return this.inner.list();
  }

  /** Resolves once a call of `op` waits (event-driven: real fs calls before it take unknown time). */
  private arrival(op: StoreOp): Promise<void> {
    if (this.pending(op) > 0) return Promise.resolve();
    return new Promise((resolve) => this.arrivals.push({ op, resolve }));
  }

  private take(op: StoreOp) {
    const taken = this.waiting.filter((entry) => entry.op === op);
    this.waiting = this.waiting.filter((entry) => entry.op !== op);
    return taken;
  }

  private gate(op: StoreOp): Promise<void> {
    if (!this.holding.has(op)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.waiting.push({ op, resolve, reject });
      const ready = this.arrivals.filter((arrival) => arrival.op === op);
      this.arrivals = this.arrivals.filter((arrival) => arrival.op !== op);
      for (const arrival of ready) arrival.resolve();
    });
  }
}
