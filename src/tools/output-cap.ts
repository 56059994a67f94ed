/**
 * Keeps the first and the last bytes of a stream that may be far larger than a model should read.
 * Memory stays bounded by the cap however much is pushed.
 *
 * @example
 * const out = new HeadTailBuffer(30_000);
 * child.stdout.on('data', (chunk) => out.push(chunk));
 * out.text(); // head, a note of what was cut, tail
 */
export class HeadTailBuffer {
  private readonly headLimit: number;
  private readonly tailLimit: number;
  private readonly head: Buffer[] = [];
  private headSize = 0;
  private tail: Buffer[] = [];
  private tailSize = 0;
  private total = 0;

  constructor(capBytes: number) {
    this.headLimit = Math.ceil(capBytes / 2);
    this.tailLimit = Math.floor(capBytes / 2);
  }

  get totalBytes(): number {
    return this.total;
  }

  get truncated(): boolean {
    return this.total > this.headLimit + this.tailLimit;
  }

  push(chunk: Buffer): void {
    this.total += chunk.length;
    let rest = chunk;
    if (this.headSize < this.headLimit) {
      const take = rest.subarray(0, this.headLimit - this.headSize);
      this.head.push(take);
      this.headSize += take.length;
      rest = rest.subarray(take.length);
    }
    if (rest.length === 0 || this.tailLimit === 0) return;
    this.tail.push(rest);
    this.tailSize += rest.length;
    this.trimTail();
  }

  /** The kept text; when bytes were dropped, a line in the middle says how many. */
  text(): string {
    const head = Buffer.concat(this.head).toString('utf8');
    const tail = Buffer.concat(this.tail).toString('utf8');
    if (!this.truncated) return head + tail;
    const cut = this.total - this.headSize - this.tailSize;
    return `${head}\n\n[... ${cut} bytes cut from the middle of the output (${this.total} bytes in all); the first ${this.headSize} and last ${this.tailSize} bytes are shown ...]\n\n${tail}`;
  }

  private trimTail(): void {
    while (this.tailSize > this.tailLimit) {
      const first = this.tail[0]!;
      const excess = this.tailSize - this.tailLimit;
      if (first.length <= excess) {
        this.tail.shift();
        this.tailSize -= first.length;
      } else {
        this.tail[0] = first.subarray(excess);
        this.tailSize -= excess;
      }
    }
  }
}

/** Cuts a single line that is too long for a model to read usefully, saying so. */
export function truncateLine(line: string, maxChars: number): string {
  if (line.length <= maxChars) return line;
  return `${line.slice(0, maxChars)}... [line truncated, ${line.length} characters]`;
}

/** Whether the bytes look binary: a NUL byte in the sample is the test git and grep use. */
export function looksBinary(sample: Uint8Array): boolean {
  return sample.includes(0);
}

/** The number of bytes of `text` in UTF-8. */
export function byteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}
