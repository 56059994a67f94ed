import { createInterface, type Interface } from 'node:readline';
import type { TextIn, TextOut } from '../terminal/io.ts';
import type { AnswerSource } from '../terminal/prompt-approver.ts';

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
};

/**
 * The chat's one reader of the terminal. A line goes to an open approval question when there is one, else
 * to the chat. On a terminal it reads keys (raw mode, through readline): Esc and Ctrl-C arrive as keys.
 * Contract: `discardTypedAhead()` clears the half-typed line, so it cannot answer the question that
 * follows; `close()` releases the terminal.
 */
export class ChatTerminal implements AnswerSource {
  private readonly reader: Interface;
  private answer: ((line: string | undefined) => void) | undefined;
  private ended = false;
  readonly isTerminal: boolean;

  constructor(input: TextIn, output: TextOut, keys: ChatKeys) {
    this.isTerminal = input.isTTY === true;
    this.reader = createInterface({
      input,
      output: output as NodeJS.WritableStream,
      terminal: this.isTerminal,
      crlfDelay: Number.POSITIVE_INFINITY,
      // Esc alone is told from the start of an escape sequence after this long.
      escapeCodeTimeout: 50,
    });
    this.reader.on('line', (text) => {
      const answer = this.answer;
      this.answer = undefined;
      if (answer) answer(text);
      else keys.line(text);
    });
    this.reader.on('SIGINT', () => keys.interrupt());
    this.reader.on('close', () => {
      this.ended = true;
      this.takeAnswer(undefined);
      keys.end();
    });
    if (this.isTerminal) {
      input.on('keypress', (_text: string, key: { name?: string } | undefined) => {
        if (key?.name === 'escape') keys.escape();
      });
    }
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
    this.reader.close();
  }

  private takeAnswer(line: string | undefined): boolean {
    const answer = this.answer;
    this.answer = undefined;
    answer?.(line);
    return answer !== undefined;
  }
}
