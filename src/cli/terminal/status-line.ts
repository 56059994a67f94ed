import type { TextOut } from './io.ts';

/** Whether the status line may be drawn now (nobody typing, no question waiting for its answer). */
export type StatusAllowed = () => boolean;

/**
 * The bottom line of a terminal shared by everything the chat writes, plus one status line that is redrawn
 * in place (a running tool, its elapsed time). Every write goes through `writer`: it erases the status
 * line first, so the status never mixes with other text, and it keeps track of whether the cursor is in
 * the middle of a line (`lineOpen`), so a notice can start on a line of its own. The status line is drawn
 * only at the start of a line, only on a terminal, and never wider than the terminal.
 * Contract: write nothing to the wrapped stream except through `writer`.
 */
export class StatusLine {
  readonly writer: TextOut;
  private open = false;
  private shown = false;
  private text: string | undefined;

  constructor(
    private readonly out: TextOut & { columns?: number },
    private readonly allowed: StatusAllowed = () => true,
  ) {
    const write = (chunk: string) => this.write(chunk);
    const lineOpen = () => this.open;
    // Readline needs the stream itself (columns, resize events): only `write` is taken over.
    this.writer = new Proxy(out, {
      get(target, property) {
        if (property === 'write') return write;
        if (property === 'lineOpen') return lineOpen();
        const value = Reflect.get(target, property) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
  }

  /** Whether the cursor is after text on its line (the next notice must start a new one). */
  get lineOpen(): boolean {
    return this.open;
  }

  /** Characters the status line may hold: one less than the terminal's width (80 when unknown). */
  get width(): number {
    return Math.max(10, (this.out.columns || 80) - 1);
  }

  /** Ends the current line when text is on it. */
  endLine(): void {
    if (this.open) this.write('\n');
  }

  /** Shows `text` as the status line (redrawn in place), or removes it (`undefined`). */
  show(text: string | undefined): void {
    this.text = text;
    if (text === undefined) this.erase();
    else this.draw();
  }

  private write(chunk: string): boolean {
    this.erase();
    this.out.write(chunk);
    // Control sequences alone (cursor moves, bracketed paste off) leave the line as it was.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the sequences start with ESC.
    const shown = chunk.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '');
    if (shown.length > 0) this.open = !shown.endsWith('\n');
    return true;
  }

  private draw(): void {
    if (this.text === undefined || this.open || this.out.isTTY !== true || !this.allowed()) return;
    const width = this.width;
    const text = this.text.length > width ? `${this.text.slice(0, width - 1)}…` : this.text;
    this.out.write(`\r\u001b[2K${text}`);
    this.shown = true;
  }

  private erase(): void {
    if (!this.shown) return;
    this.shown = false;
    this.out.write('\r\u001b[2K');
  }
}
