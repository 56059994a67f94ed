import { createInterface, type Interface } from 'node:readline';
import type { ApprovalAnswer, ApprovalRequest } from '../actors/approval.ts';
import type { TextIn, TextOut } from './io.ts';
import { summarizeToolInput } from './render.ts';

export type PromptApproverOptions = {
  /** Where answers are read, one per line (the terminal's stdin). */
  input: TextIn;
  /** Where questions are written (stderr, so stdout stays the command's output). */
  output: TextOut;
};

/**
 * An approver that asks the person at the terminal. Contract: questions are asked one at a time in the
 * order the calls arrive, each after a turn of the event loop (so pending output is printed first); an unreadable answer is asked again; end of input denies; `close()` releases
 * the input so the process can exit.
 */
export type PromptApprover = {
  approve: (request: ApprovalRequest) => Promise<ApprovalAnswer>;
  close: () => void;
};

const choices = '[y] allow once  [a] allow for this session  [n] deny';

/** Reads `y`, `a` or `n` (or the words) into an answer; anything else is not an answer. */
export function parseAnswer(text: string): ApprovalAnswer | undefined {
  const word = text.trim().toLowerCase();
  if (word === 'y' || word === 'yes') return 'allow';
  if (word === 'a' || word === 'always') return 'allow_session';
  if (word === 'n' || word === 'no') return 'deny';
  return undefined;
}

/**
 * Asks on the terminal whether a tool call may run.
 *
 * @example
 * const prompt = promptApprover({ input: process.stdin, output: process.stderr });
 * const system = createAgentSystem({ model, approve: prompt.approve });
 * // … run the agent …
 * prompt.close();
 */
export function promptApprover(options: PromptApproverOptions): PromptApprover {
  const lines = new LineReader(options.input);
  let queue: Promise<unknown> = Promise.resolve();

  const ask = async (request: ApprovalRequest): Promise<ApprovalAnswer> => {
    // The live view prints asynchronously: let it show the call before the question appears under it.
    await new Promise((resolve) => setImmediate(resolve));
    const summary = summarizeToolInput(request.tool, request.input);
    options.output.write(`\nAllow ${request.tool} ${summary}?\n  ${choices}\n`);
    for (;;) {
      options.output.write('> ');
      const answer = await lines.next();
      if (answer === undefined) {
        options.output.write('\n(no more input: denied)\n');
        return 'deny';
      }
      const parsed = parseAnswer(answer);
      if (parsed) return parsed;
      options.output.write(`Please answer y, a or n. ${choices}\n`);
    }
  };

  return {
    approve: (request) => {
      const answer = queue.then(() => ask(request));
      // The next question waits for this one whatever its outcome; the caller still sees this one's.
      queue = answer.catch(() => undefined);
      return answer;
    },
    close: () => lines.close(),
  };
}

/** Lines of a stream, read on demand; lines typed ahead are kept for the next question. */
class LineReader {
  private reader: Interface | undefined;
  private readonly buffered: string[] = [];
  private waiting: ((line: string | undefined) => void) | undefined;
  private ended = false;

  constructor(private readonly input: TextIn) {}

  next(): Promise<string | undefined> {
    this.open();
    const ready = this.buffered.shift();
    if (ready !== undefined) return Promise.resolve(ready);
    if (this.ended) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }

  close(): void {
    this.reader?.close();
  }

  // Opened on the first question only: an idle readline would keep the process alive and eat stdin.
  private open(): void {
    if (this.reader || this.ended) return;
    this.reader = createInterface({ input: this.input, crlfDelay: Number.POSITIVE_INFINITY });
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
}
