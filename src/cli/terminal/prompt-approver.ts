import type { ApprovalAnswer, ApprovalRequest } from '../../actors/approval.ts';
import { exitPlanModeName } from '../../permissions/modes.ts';
import { approvalLines, offeredRule, type Paint } from './approval-view.ts';
import type { TextOut } from './io.ts';
import { askAboutPlan } from './plan-question.ts';
import { wrapChoices } from './wrap-words.ts';

/**
 * Where answers are read, one line each. Contract: `discardTypedAhead()` drops every line (and half-typed
 * line) that arrived before it was called, so nothing typed before a question is taken as its answer;
 * `nextLine()` resolves with the next line, or `undefined` once input has ended.
 */
export interface AnswerSource {
  discardTypedAhead(): void;
  nextLine(): Promise<string | undefined>;
}

export type PromptApproverOptions = {
  /** Where answers are read (the terminal). */
  input: AnswerSource;
  /** Where questions are written (stderr for `run`, so stdout stays the command's output). */
  output: TextOut;
  /** The workspace, against which a write or edit is diffed before it is asked about. */
  cwd: string;
  /** Characters per line (wrapping only: nothing is cut). Default 100. */
  width?: number;
  /** Lines per page on a terminal: a longer view is shown a page at a time. Default: no paging. */
  pageRows?: number;
  paint?: Paint;
};

/**
 * An approver that asks the person at the terminal. Contract: questions are asked one at a time in the
 * order the calls arrive, each after a turn of the event loop (so pending output is printed first); what
 * was typed before a question is discarded; an unreadable answer is asked again; end of input denies.
 */
export type PromptApprover = (request: ApprovalRequest) => Promise<ApprovalAnswer>;

/** The person's answer: the word they typed, or, for `n`, a reason the model reads. */
export type ParsedAnswer =
  | { kind: 'allow' }
  | { kind: 'session' }
  | { kind: 'prefix' }
  | { kind: 'deny'; reason?: string };

/**
 * Reads `y`, `a`, `p` or `n` (or the words); `n <reason>` denies with that reason. Anything else is not an
 * answer. `p` is only an answer when a prefix rule is offered.
 */
export function parseAnswer(text: string, prefixOffered = false): ParsedAnswer | undefined {
  const trimmed = text.trim();
  const [word = '', ...rest] = trimmed.split(/\s+/);
  const lower = word.toLowerCase();
  if (rest.length === 0 && (lower === 'y' || lower === 'yes')) return { kind: 'allow' };
  if (rest.length === 0 && (lower === 'a' || lower === 'always')) return { kind: 'session' };
  if (rest.length === 0 && prefixOffered && (lower === 'p' || lower === 'prefix')) return { kind: 'prefix' };
  if (lower === 'n' || lower === 'no') {
    const reason = trimmed.slice(word.length).trim();
    return reason === '' ? { kind: 'deny' } : { kind: 'deny', reason };
  }
  return undefined;
}

const plain: Paint = (_style, text) => text;

/**
 * Asks on the terminal whether a tool call may run, after showing all of it (see approval-view.ts).
 *
 * @example
 * const approve = promptApprover({ input: stdinLines(process.stdin), output: process.stderr, cwd });
 * const system = createAgentSystem({ model, approve });
 */
export function promptApprover(options: PromptApproverOptions): PromptApprover {
  const { input, output } = options;
  const paint = options.paint ?? plain;
  let queue: Promise<unknown> = Promise.resolve();

  const ask = async (request: ApprovalRequest): Promise<ApprovalAnswer> => {
    // The live view prints asynchronously: let it show the call before the question appears under it.
    await new Promise((resolve) => setImmediate(resolve));
    if (request.tool === exitPlanModeName) return askAboutPlan(request, options);
    const lines = await approvalLines(request, { cwd: options.cwd, width: options.width ?? 100, paint });
    input.discardTypedAhead();
    output.write('\n');
    if (!(await showPaged(lines, options))) return deny(output, 'no more input');
    const rule = offeredRule(request);
    const choices = [
      '[y] allow once',
      `[a] allow ${request.tool} like this for the session`,
      ...(rule ? [`[p] allow the prefix ${rule} for the session`] : []),
      '[n] deny (n <reason>: the model reads the reason)',
    ];
    const shown = wrapChoices(choices, options.width ?? 100);
    output.write(`Allow this ${request.tool} call?\n${shown.join('\n')}\n`);
    input.discardTypedAhead();
    for (;;) {
      output.write('> ');
      const text = await input.nextLine();
      if (text === undefined) return deny(output, 'no more input');
      const parsed = parseAnswer(text, rule !== undefined);
      if (parsed === undefined) {
        output.write(`Please answer y, a${rule ? ', p' : ''} or n.\n`);
        continue;
      }
      if (parsed.kind === 'allow') return 'allow';
      if (parsed.kind === 'session') return 'allow_session';
      if (parsed.kind === 'prefix') return { outcome: 'allow_session', rule: rule! };
      if (parsed.reason !== undefined) return { outcome: 'deny', reason: parsed.reason };
      output.write('Why? The model reads this (Enter to give no reason): ');
      const reason = (await input.nextLine())?.trim();
      return reason ? { outcome: 'deny', reason } : 'deny';
    }
  };

  return (request) => {
    const answer = queue.then(() => ask(request));
    // The next question waits for this one whatever its outcome; the caller still sees this one's.
    queue = answer.catch(() => undefined);
    return answer;
  };
}

function deny(output: TextOut, why: string): ApprovalAnswer {
  output.write(`\n(${why}: denied)\n`);
  return 'deny';
}

/**
 * Writes `lines`, a page at a time when `pageRows` is set and they do not fit: Enter shows the next page,
 * `q` skips to the question. Resolves false when input ended.
 */
async function showPaged(lines: readonly string[], options: PromptApproverOptions): Promise<boolean> {
  const { output, input } = options;
  const rows = options.pageRows;
  if (rows === undefined || lines.length <= rows) {
    output.write(`${lines.join('\n')}\n`);
    return true;
  }
  for (let start = 0; start < lines.length; start += rows) {
    output.write(`${lines.slice(start, start + rows).join('\n')}\n`);
    const left = lines.length - start - rows;
    if (left <= 0) break;
    input.discardTypedAhead();
    output.write(`-- ${left} more lines: Enter shows the next page, q goes to the question --`);
    const text = await input.nextLine();
    if (text === undefined) return false;
    if (text.trim().toLowerCase() === 'q') {
      output.write(`(${left} lines not shown)\n`);
      break;
    }
  }
  return true;
}
