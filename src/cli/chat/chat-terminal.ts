import { createInterface, type Interface } from 'node:readline';
import { PassThrough } from 'node:stream';
import { disableBracketedPaste, enableBracketedPaste, PasteParser } from '../terminal/bracketed-paste.ts';
import type { TextIn, TextOut } from '../terminal/io.ts';
import type { AnswerSource } from '../terminal/prompt-approver.ts';
import { leaveOnSignals } from './leave-on-signal.ts';

/** What the chat does with what the person types outside of approval questions. */
export type ChatKeys = {
  /** A whole line (a task, a steer or a slash command). */
  line(text: string): void;
  /** Esc: cancel the running turn. */
  escape(): void;
  /** Ctrl-C. */
  interrupt(): void;
  /** End of input (Ctrl-D on an empty line, or the stream ended). */
  end(): void;
  /** SIGTERM or SIGHUP (the terminal was already given back): leave, exiting with `code`. */
  leave(code: number): void;
};

/** Lines kept for the Up arrow. */
const historyLength = 200;

/**
 * The chat's one reader of the terminal. A line goes to an open approval question when there is one, else
 * to the chat. On a terminal it reads keys (raw mode, through readline): Esc and Ctrl-C arrive as keys,
 * and a paste arrives whole (bracketed paste): a pasted block of several lines is one line of input, its
 * newlines kept, shown as `[pasted text #1: 3 lines]` until Enter sends it. The Up arrow recalls what was
 * typed at the chat's prompt, never answers to questions. Contract: `discardTypedAhead()` clears the
 * half-typed line, so it cannot answer the question that follows; `close()` releases the terminal.
 */
export class ChatTerminal implements AnswerSource {
  private readonly reader: Interface;
  private answer: ((line: string | undefined) => void) | undefined;
  private ended = false;
  private closed = false;
  /** Readline's Up-arrow list (newest first), filled here: readline itself adds nothing (`historySize: 0`). */
  private readonly history: string[] = [];
  /** Pasted blocks of several lines, by the placeholder that stands for each in the line being typed. */
  private readonly pastes = new Map<string, string>();
  private pasteCount = 0;
  private readonly releaseInput: () => void;
  private readonly pasteMode: boolean;
  private pasteRestored = false;
  private readonly stopSignals: () => void;
  readonly isTerminal: boolean;

  constructor(
    input: TextIn,
    private readonly output: TextOut,
    keys: ChatKeys,
  ) {
    this.isTerminal = input.isTTY === true;
    const keyed = this.isTerminal ? this.pasteAware(input) : { stream: input, release: () => undefined };
    this.releaseInput = keyed.release;
    this.reader = createInterface({
      input: keyed.stream,
      output: output as NodeJS.WritableStream,
      terminal: this.isTerminal,
      crlfDelay: Number.POSITIVE_INFINITY,
      // Esc alone is told from the start of an escape sequence after this long.
      escapeCodeTimeout: 50,
      history: this.history,
      historySize: 0,
    });
    this.reader.on('line', (typed) => {
      const text = this.withPastes(typed);
      const answer = this.answer;
      this.answer = undefined;
      if (answer) return answer(text);
      this.remember(typed);
      keys.line(text);
    });
    this.reader.on('SIGINT', () => keys.interrupt());
    this.reader.on('close', () => {
      this.ended = true;
      this.takeAnswer(undefined);
      keys.end();
    });
    if (this.isTerminal) {
      keyed.stream.on('keypress', (_text: string, key: { name?: string } | undefined) => {
        if (key?.name === 'escape') keys.escape();
      });
    }
    // Only a terminal that shows the output reads the request (a piped stdout would just carry it).
    this.pasteMode = this.isTerminal && output.isTTY === true;
    if (this.pasteMode) output.write(enableBracketedPaste);
    this.stopSignals = leaveOnSignals((code) => {
      this.restorePasteMode();
      keys.leave(code);
    });
  }

  /** What the person is typing now (empty between lines). */
  get typing(): string {
    return this.isTerminal ? this.reader.line : '';
  }

  /** Shows the input prompt (when idle). */
  prompt(text = '› '): void {
    this.reader.setPrompt(text);
    this.reader.prompt();
  }

  discardTypedAhead(): void {
    if (!this.isTerminal) return;
    // No prompt while a question is open: the redraw after the deletion would show it.
    this.reader.setPrompt('');
    // Ctrl-E then Ctrl-U: to the end of the line, then delete everything left of the cursor.
    this.reader.write(null, { ctrl: true, name: 'e' });
    this.reader.write(null, { ctrl: true, name: 'u' });
  }

  nextLine(): Promise<string | undefined> {
    if (this.ended) return Promise.resolve(undefined);
    this.reader.setPrompt('');
    return new Promise((resolve) => {
      this.answer = resolve;
    });
  }

  /** Ends an open question as if input had ended (it then denies): the turn it belonged to is cancelled. */
  abandonQuestion(): boolean {
    return this.takeAnswer(undefined);
  }

  /** Whether an approval question is waiting for its answer. */
  get asking(): boolean {
    return this.answer !== undefined;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.stopSignals();
    this.reader.close();
    this.releaseInput();
    this.restorePasteMode();
  }

  /** Turns bracketed paste off again, once: the shell after the chat must not get pastes wrapped. */
  private restorePasteMode(): void {
    if (!this.pasteMode || this.pasteRestored) return;
    this.pasteRestored = true;
    this.output.write(disableBracketedPaste);
  }

  /**
   * The terminal's keys as readline reads them, with every paste taken out of the key stream: a paste
   * without a newline is typed as it is, a longer one becomes a placeholder in the line.
   */
  private pasteAware(input: TextIn): { stream: TextIn; release: () => void } {
    const tty = input as TextIn & { setRawMode?: (on: boolean) => unknown };
    const keys = Object.assign(new PassThrough({ encoding: 'utf8' }), {
      isTTY: true,
      // Readline turns raw mode on and off through its input: pass that on to the terminal.
      setRawMode: (on: boolean) => tty.setRawMode?.(on),
    });
    const parser = new PasteParser();
    const onData = (chunk: Buffer | string) => {
      for (const piece of parser.feed(chunk.toString())) {
        if (piece.kind === 'typed' || !piece.text.includes('\n')) keys.write(piece.text);
        else keys.write(this.placeholderFor(piece.text.replace(/\n+$/, '')));
      }
    };
    const onEnd = () => keys.end();
    input.on('data', onData);
    input.on('end', onEnd);
    return {
      stream: keys,
      release: () => {
        input.off('data', onData);
        input.off('end', onEnd);
        input.pause();
      },
    };
  }

  private placeholderFor(block: string): string {
    this.pasteCount += 1;
    const placeholder = `[pasted text #${this.pasteCount}: ${block.split('\n').length} lines]`;
    this.pastes.set(placeholder, block);
    return placeholder;
  }

  /** The line with every paste placeholder in it replaced by the block it stands for. */
  private withPastes(typed: string): string {
    let text = typed;
    // Kept after use: the Up arrow may bring a line with a placeholder back.
    for (const [placeholder, block] of this.pastes) text = text.replaceAll(placeholder, block);
    return text;
  }

  /** Keeps a line typed at the chat's prompt for the Up arrow (the newest first, no repeats). */
  private remember(typed: string): void {
    if (typed.trim() === '' || !this.isTerminal) return;
    const earlier = this.history.indexOf(typed);
    if (earlier !== -1) this.history.splice(earlier, 1);
    this.history.unshift(typed);
    this.history.length = Math.min(this.history.length, historyLength);
  }

  private takeAnswer(line: string | undefined): boolean {
    const answer = this.answer;
    this.answer = undefined;
    answer?.(line);
    return answer !== undefined;
  }
}
