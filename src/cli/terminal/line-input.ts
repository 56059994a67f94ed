import { createInterface, type Interface } from 'node:readline';
import type { TextIn } from './io.ts';
import type { AnswerSource } from './prompt-approver.ts';

/**
 * The lines of a stream as answers to approval questions (`run`, `resume`). It reads from the start, so
 * lines typed while the model works arrive here, and are dropped by `discardTypedAhead()` before a
 * question instead of answering it. Contract: call `close()` when done, so the process can exit.
 */
export class StdinLines implements AnswerSource {
  private readonly reader: Interface;
  private buffered: string[] = [];
  private waiting: ((line: string | undefined) => void) | undefined;
  private ended = false;

  constructor(input: TextIn) {
    this.reader = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
    this.reader.on('line', (text) => {
      const waiting = this.waiting;
      this.waiting = undefined;
      if (waiting) waiting(text);
      else this.buffered.push(text);
    });
    this.reader.on('close', () => {
      this.ended = true;
      const waiting = this.waiting;
      this.waiting = undefined;
      waiting?.(undefined);
    });
  }

  discardTypedAhead(): void {
    this.buffered = [];
  }

  nextLine(): Promise<string | undefined> {
    const ready = this.buffered.shift();
    if (ready !== undefined) return Promise.resolve(ready);
    if (this.ended) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }

  close(): void {
    this.reader.close();
  }
}
