import type { LiveEvent } from '../actors/live-event.ts';

/**
 * Fan-out of live events to subscribers. Publishing costs nothing when nobody listens, which keeps the
 * hot path cheap for embedded use.
 */
export class LiveBus {
  private readonly listeners = new Set<(event: LiveEvent) => void>();
  private readonly closers = new Set<() => void>();
  private closed = false;

  publish = (event: LiveEvent): void => {
    for (const listener of this.listeners) listener(event);
  };

  get hasListeners(): boolean {
    return this.listeners.size > 0;
  }

  subscribe(listener: (event: LiveEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** An async iterator over events from now on; it ends when the bus closes or the consumer breaks. */
  iterate(): AsyncIterableIterator<LiveEvent> {
    const buffer: LiveEvent[] = [];
    let wake: (() => void) | undefined;
    let done = this.closed;
    const unsubscribe = this.subscribe((event) => {
      buffer.push(event);
      wake?.();
    });
    const close = () => {
      done = true;
      wake?.();
    };
    this.closers.add(close);
    const finish = () => {
      unsubscribe();
      this.closers.delete(close);
    };
    const iterator: AsyncIterableIterator<LiveEvent> = {
      [Symbol.asyncIterator]: () => iterator,
      next: async () => {
        while (buffer.length === 0 && !done) await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
        const event = buffer.shift();
        if (event) return { value: event, done: false };
        finish();
        return { value: undefined, done: true };
      },
      return: async () => {
        // A consumer that stops early must also release a `next()` still waiting for an event.
        close();
        finish();
        return { value: undefined, done: true };
      },
    };
    return iterator;
  }

  close(): void {
    this.closed = true;
    for (const close of this.closers) close();
  }
}
