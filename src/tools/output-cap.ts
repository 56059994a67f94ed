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

  /**
   * The kept text. When bytes were dropped, the head and tail are trimmed to whole lines (when they hold a
   * line break) and a line in the middle says how much was cut.
   */
  text(): string {
    let head = Buffer.concat(this.head);
    let tail = Buffer.concat(this.tail);
    if (!this.truncated) return Buffer.concat([head, tail]).toString('utf8');
    const lastBreak = head.lastIndexOf(0x0a);
    if (lastBreak !== -1) head = head.subarray(0, lastBreak + 1);
    const firstBreak = tail.indexOf(0x0a);
    if (firstBreak !== -1 && firstBreak < tail.length - 1) tail = tail.subarray(firstBreak + 1);
    const cut = this.total - head.length - tail.length;
    const note =
      `[... ${cut} bytes cut from the middle of the output (${this.total} bytes in all); ` +
      `the first ${head.length} and last ${tail.length} bytes are shown ...]`;
    const gap = head.at(-1) === 0x0a ? '' : '\n';
    return `${head.toString('utf8')}${gap}${note}\n${tail.toString('utf8')}`;
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

// Room kept under the runtime's cap for a paging tool's own notes (where to continue, the encoding).
const noteRoom = 1_000;

/**
 * The page size, in bytes, of a tool that pages its output (`read_file`, `grep`): its own cap, kept under
 * the runtime's cap on a result the model reads whole (`ctx.maxOutputChars`), so a page is never cut
 * and saved again. Bytes bound characters: a string is never longer in UTF-16 units than in UTF-8 bytes.
 */
export function pageBytes(own: number, maxOutputChars: number | undefined): number {
  if (maxOutputChars === undefined) return own;
  return Math.max(1, Math.min(own, maxOutputChars - noteRoom));
}
