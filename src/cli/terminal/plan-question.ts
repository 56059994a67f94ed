import type { ApprovalAnswer, ApprovalRequest } from '../../actors/approval.ts';
import type { TextOut } from './io.ts';
import { wrapChoices } from './wrap-words.ts';

/** The answer to a plan: accept it (continuing in `default` or `accept-edits`), or deny it with a reason. */
export function parsePlanAnswer(text: string): ApprovalAnswer | 'ask-reason' | undefined {
  const trimmed = text.trim();
  const [word = '', ...rest] = trimmed.split(/\s+/);
  const lower = word.toLowerCase();
  if (rest.length === 0 && (lower === 'y' || lower === 'yes')) return 'allow';
  if (rest.length === 0 && (lower === 'e' || lower === 'edits'))
    return { outcome: 'allow', mode: 'accept-edits' };
  if (lower === 'n' || lower === 'no') {
    const reason = trimmed.slice(word.length).trim();
    return reason === '' ? 'ask-reason' : { outcome: 'deny', reason };
  }
  return undefined;
}

/**
 * Shows the plan of an `exit_plan_mode` call and asks whether to accept it. Accepting switches the agent
 * out of plan mode (to `default`, or `accept-edits` with `e`); a denial's reason tells the model what to
 * change, and it stays in plan mode.
 */
export async function askAboutPlan(
  request: ApprovalRequest,
  // The prompt approver's answer source (see `AnswerSource` in prompt-approver.ts).
  io: {
    input: { discardTypedAhead(): void; nextLine(): Promise<string | undefined> };
    output: TextOut;
    /** Characters per line the choices wrap at, between words (default 100). */
    width?: number;
  },
): Promise<ApprovalAnswer> {
  const { input, output } = io;
  const plan = (request.input as { plan?: unknown } | null)?.plan;
  output.write(
    `\nThe agent's plan:\n\n${typeof plan === 'string' ? plan : JSON.stringify(request.input)}\n\n`,
  );
  const choices = wrapChoices(
    [
      '[y] yes, continue (edits and commands are asked about)',
      '[e] yes, and allow edits',
      '[n] no, keep planning (n <reason>: the model reads the reason)',
    ],
    io.width ?? 100,
  );
  output.write(`Accept this plan?\n${choices.join('\n')}\n`);
  input.discardTypedAhead();
  for (;;) {
    output.write('> ');
    const text = await input.nextLine();
    if (text === undefined) {
      output.write('\n(no more input: denied)\n');
      return 'deny';
    }
    const answer = parsePlanAnswer(text);
    if (answer === undefined) {
      output.write('Please answer y, e or n.\n');
      continue;
    }
    if (answer !== 'ask-reason') return answer;
    output.write('What should change? The model reads this (Enter to give no reason): ');
    const reason = (await input.nextLine())?.trim();
    return reason
      ? { outcome: 'deny', reason }
      : { outcome: 'deny', reason: 'the user did not accept the plan' };
  }
}
