import type { LiveEvent } from '../actors/live-event.ts';
import { AgentStateError } from '../errors/agent-state-error.ts';

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

  /**
   * An async iterator over events from now on; it ends when the bus closes or the consumer breaks.
   * A consumer that falls more than `maxBuffered` events behind is cut off: it receives what was
   * buffered, then `next()` rejects with `AgentStateError` (the session log still has everything).
   */
  iterate(options: { maxBuffered?: number } = {}): AsyncIterableIterator<LiveEvent> {
    const maxBuffered = options.maxBuffered ?? 10_000;
    let buffer: LiveEvent[] = [];
    let head = 0;
    let wake: (() => void) | undefined;
    let done = this.closed;
    let overflowed = false;
    const unsubscribe = this.subscribe((event) => {
      if (buffer.length - head >= maxBuffered) {
        overflowed = true;
        finish();
      } else buffer.push(event);
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
        while (head === buffer.length && !done && !overflowed)
          await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
        if (head < buffer.length) {
          const event = buffer[head++]!;
          // Drop consumed events now and then, so a long stream does not keep them all.
          if (head > 1_024 && head * 2 > buffer.length) {
            buffer = buffer.slice(head);
            head = 0;
          }
          return { value: event, done: false };
        }
        finish();
        if (overflowed) {
          throw new AgentStateError(
            `live events: the consumer fell more than ${maxBuffered} events behind and was cut off; agent.log() has every logged event`,
          );
        }
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
