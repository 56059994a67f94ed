import { describe, expect, it } from 'vitest';
import { StdinLines } from '../../src/cli/terminal/line-input.ts';
import { parsePlanAnswer } from '../../src/cli/terminal/plan-question.ts';
import { promptApprover } from '../../src/cli/terminal/prompt-approver.ts';
import { capture, fakeStdin } from './cli-harness.ts';

async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setImmediate(resolve));
}

describe('the CLI question about a plan (exit_plan_mode)', () => {
  it('reads y, e and n <reason>', () => {
    expect(['y', 'yes', 'E', 'edits', 'n', 'no too big', 'maybe', 'y please'].map(parsePlanAnswer)).toEqual([
      'allow',
      'allow',
      { outcome: 'allow', mode: 'accept-edits' },
      { outcome: 'allow', mode: 'accept-edits' },
      'ask-reason',
      { outcome: 'deny', reason: 'too big' },
      undefined,
      undefined,
    ]);
  });

  it('shows the plan, accepts with a mode, and asks what should change after a bare "n"', async () => {
    const stdin = fakeStdin(true);
    const lines = new StdinLines(stdin);
    const output = capture();
    const approve = promptApprover({ input: lines, output, cwd: '/w' });
    const plan = { agentId: 'a', callId: 'p1', tool: 'exit_plan_mode', input: { plan: '1. Read\n2. Edit' } };
    const first = approve(plan);
    await until(() => output.text.endsWith('> '));
    expect(output.text).toContain("The agent's plan:\n\n1. Read\n2. Edit\n");
    expect(output.text).toContain('[e] yes, and allow edits');
    stdin.write('maybe\n');
    await until(() => output.text.includes('Please answer y, e or n.'));
    stdin.write('e\n');
    expect(await first).toEqual({ outcome: 'allow', mode: 'accept-edits' });
    const second = approve({ ...plan, callId: 'p2' });
    await until(() => output.text.match(/> /g)?.length === 3);
    stdin.write('n\n');
    await until(() => output.text.includes('What should change?'));
    stdin.write('also update the README\n');
    expect(await second).toEqual({ outcome: 'deny', reason: 'also update the README' });
    lines.close();
  });
});
