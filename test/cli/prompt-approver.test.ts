import { describe, expect, it } from 'vitest';
import { parseAnswer, promptApprover } from '../../src/cli/prompt-approver.ts';
import { capture, fakeStdin } from './cli-harness.ts';

const request = (callId: string, tool: string, input: unknown) => ({
  agentId: 'agent-1',
  callId,
  tool,
  input,
});
/** Waits, one event-loop turn at a time, until `done()` holds. */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setImmediate(resolve));
}

const choices = '  [y] allow once  [a] allow for this session  [n] deny\n';

describe('promptApprover', () => {
  it('reads "a" as allow for the session and "n" as deny, one question at a time', async () => {
    const stdin = fakeStdin(true);
    const output = capture();
    const prompt = promptApprover({ input: stdin, output });
    const first = prompt.approve(request('c1', 'bash', { command: 'npm test' }));
    const second = prompt.approve(request('c2', 'write_file', { path: 'src/a.ts', content: 'x' }));
    // Only the first question is on screen until it is answered.
    await until(() => output.text.endsWith('> '));
    await new Promise((resolve) => setImmediate(resolve));
    expect(output.text).toBe(`\nAllow bash npm test?\n${choices}> `);
    stdin.write('a\n');
    expect(await first).toBe('allow_session');
    stdin.write('n\n');
    expect(await second).toBe('deny');
    expect(output.text).toBe(
      `\nAllow bash npm test?\n${choices}> \nAllow write_file src/a.ts?\n${choices}> `,
    );
    prompt.close();
  });

  it('asks again after an answer it cannot read, and denies when input ends', async () => {
    const stdin = fakeStdin(true);
    const output = capture();
    const prompt = promptApprover({ input: stdin, output });
    stdin.write('maybe\nyes\n');
    expect(
      await prompt.approve(request('c1', 'edit_file', { path: 'a.js', old_string: 'a', new_string: 'b' })),
    ).toBe('allow');
    // The answers are not echoed here (a terminal echoes them), so each message follows a "> " prompt.
    expect(output.text.split('\n').filter((entry) => entry.includes('Please'))).toEqual([
      '> Please answer y, a or n. [y] allow once  [a] allow for this session  [n] deny',
    ]);
    stdin.end();
    expect(await prompt.approve(request('c2', 'bash', { command: 'rm -rf build' }))).toBe('deny');
    expect(output.text.endsWith('> \n(no more input: denied)\n')).toBe(true);
    prompt.close();
  });

  it('parses the answers it offers, and nothing else', () => {
    expect(['y', 'Y', ' yes ', 'a', 'always', 'n', 'No', '', 'ok'].map(parseAnswer)).toEqual([
      'allow',
      'allow',
      'allow',
      'allow_session',
      'allow_session',
      'deny',
      'deny',
      undefined,
      undefined,
    ]);
  });
});
