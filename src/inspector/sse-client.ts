import type { InspectorMessage } from './protocol.ts';

/** Where frames go: a `ServerResponse` in the server, a fake in tests. */
export type SseSink = {
  /** Contract: returns false when the caller should wait for `drain` before writing more. */
  write(chunk: string): boolean;
  on(event: 'drain', listener: () => void): unknown;
  end(): void;
};

export type SseClientOptions = {
  /** Frames held for a slow client beyond this many bytes are dropped, then the client is resynced. */
  maxQueuedBytes: number;
  /** The fresh `snapshot` message a client gets after it fell behind. */
  resync: () => InspectorMessage;
};

export type SseClientStats = {
  written: number;
  queuedBytes: number;
  /** The most bytes ever held for this client: never above `maxQueuedBytes`. */
  peakQueuedBytes: number;
  dropped: number;
  resets: number;
};

type Frame = { text: string; bytes: number; delta?: Extract<InspectorMessage, { kind: 'delta' }> };

/** One Server-Sent Event carrying one message. */
export function sseFrame(message: InspectorMessage): string {
  return `data: ${JSON.stringify(message)}\n\n`;
}

/**
 * One `/events` connection with a bounded queue. While the socket accepts data, frames go straight out;
 * while it is full, frames wait, and a delta that follows a delta of the same step is merged into it.
 * When the queue would pass `maxQueuedBytes`, everything queued is dropped and the client later gets a
 * `reset` and a fresh snapshot instead: memory stays bounded however slow the client is.
 */
export class SseClient {
  private queue: Frame[] = [];
  private waiting = false;
  private behind = false;
  private closed = false;
  readonly stats: SseClientStats = { written: 0, queuedBytes: 0, peakQueuedBytes: 0, dropped: 0, resets: 0 };

  constructor(
    private readonly sink: SseSink,
    private readonly options: SseClientOptions,
  ) {
    sink.on('drain', () => this.drain());
  }

  send(message: InspectorMessage): void {
    if (this.closed) return;
    if (this.behind) {
      this.stats.dropped++;
      return;
    }
    if (!this.waiting && this.queue.length === 0) {
      this.write(sseFrame(message));
      return;
    }
    this.enqueue(message);
  }

  /** Sends a comment line (ignored by EventSource), used to open the stream at once. */
  comment(text: string): void {
    if (!this.closed && !this.waiting) this.write(`: ${text}\n\n`);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.queue = [];
    this.stats.queuedBytes = 0;
    this.sink.end();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  private enqueue(message: InspectorMessage): void {
    const last = this.queue.at(-1);
    if (message.kind === 'delta' && last?.delta && sameStep(last.delta, message)) {
      this.queue.pop();
      this.stats.queuedBytes -= last.bytes;
      this.push({ ...last.delta, text: last.delta.text + message.text });
      return;
    }
    this.push(message);
  }

  private push(message: InspectorMessage): void {
    const text = sseFrame(message);
    const frame: Frame = { text, bytes: Buffer.byteLength(text) };
    if (message.kind === 'delta') frame.delta = message;
    if (this.stats.queuedBytes + frame.bytes > this.options.maxQueuedBytes) {
      this.stats.dropped += this.queue.length + 1;
      this.queue = [];
      this.stats.queuedBytes = 0;
      this.behind = true;
      return;
    }
    this.queue.push(frame);
    this.stats.queuedBytes += frame.bytes;
    this.stats.peakQueuedBytes = Math.max(this.stats.peakQueuedBytes, this.stats.queuedBytes);
  }

  private drain(): void {
    if (this.closed) return;
    this.waiting = false;
    if (this.behind) {
      this.behind = false;
      this.stats.resets++;
      this.write(sseFrame({ kind: 'reset', dropped: this.stats.dropped }));
      this.write(sseFrame(this.options.resync()));
    }
    while (!this.waiting && this.queue.length > 0) {
      const frame = this.queue.shift()!;
      this.stats.queuedBytes -= frame.bytes;
      this.write(frame.text);
    }
  }

  private write(text: string): void {
    this.stats.written++;
    if (!this.sink.write(text)) this.waiting = true;
  }
}

function sameStep(
  a: Extract<InspectorMessage, { kind: 'delta' }>,
  b: Extract<InspectorMessage, { kind: 'delta' }>,
): boolean {
  return a.agentId === b.agentId && a.turn === b.turn && a.step === b.step && a.thinking === b.thinking;
}
