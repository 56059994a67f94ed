import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { approvalLines } from '../../src/cli/terminal/approval-view.ts';
import { StdinLines } from '../../src/cli/terminal/line-input.ts';
import { parseAnswer, promptApprover } from '../../src/cli/terminal/prompt-approver.ts';
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
const plainPaint = (_style: string, text: string) => text;
/** The framed lines of a view, without their `  │ ` frame. */
const framed = (lines: string[]) =>
  lines.filter((text) => text.startsWith('  │ ')).map((text) => text.slice('  │ '.length));

describe('promptApprover', () => {
  let workspace: string;
  beforeEach(async () => {
    workspace = await mkdtemp(join(tmpdir(), 'agentchart-approver-'));
  });
  afterEach(async () => {
    await rm(workspace, { recursive: true, force: true });
  });

  it('asks one question at a time; "a" allows for the session, "p" the offered prefix, "n <reason>" denies with it', async () => {
    const stdin = fakeStdin(true);
    const lines = new StdinLines(stdin);
    const output = capture();
    const approve = promptApprover({ input: lines, output, cwd: workspace });
    const first = approve(request('c1', 'bash', { command: 'npm test -- --watch' }));
    const second = approve(request('c2', 'bash', { command: 'npm test' }));
    const third = approve(request('c3', 'read_file', { path: 'a.ts' }));
    await until(() => output.text.endsWith('> '));
    expect(output.text).toContain('[p] allow the prefix bash(npm test:*) for the session');
    expect(output.text.match(/Allow this/g)).toHaveLength(1);
    stdin.write('p\n');
    expect(await first).toEqual({ outcome: 'allow_session', rule: 'bash(npm test:*)' });
    await until(() => output.text.match(/> /g)?.length === 2);
    stdin.write('a\n');
    expect(await second).toBe('allow_session');
    await until(() => output.text.match(/> /g)?.length === 3);
    // No prefix is offered for a call without a command, so "p" is not an answer there.
    expect(output.text.split('Allow this read_file call?')[1]).not.toContain('[p]');
    stdin.write('p\n');
    await until(() => output.text.includes('Please answer y, a or n.'));
    stdin.write('n the file is private\n');
    expect(await third).toEqual({ outcome: 'deny', reason: 'the file is private' });
    lines.close();
  });

  it('discards lines typed before the question, asks for a reason after a bare "n", and denies when input ends', async () => {
    const stdin = fakeStdin(true);
    const lines = new StdinLines(stdin);
    const output = capture();
    const approve = promptApprover({ input: lines, output, cwd: workspace });
    // Typed while the model was streaming: it must not answer the question that comes next.
    stdin.write('y\n');
    await new Promise((resolve) => setImmediate(resolve));
    const answer = approve(request('c1', 'bash', { command: 'rm -rf build' }));
    await until(() => output.text.endsWith('> '));
    stdin.write('n\n');
    await until(() => output.text.includes('Why? The model reads this'));
    stdin.write('use the clean script\n');
    expect(await answer).toEqual({ outcome: 'deny', reason: 'use the clean script' });
    stdin.end();
    expect(await approve(request('c2', 'bash', { command: 'ls' }))).toBe('deny');
    expect(output.text.endsWith('> \n(no more input: denied)\n')).toBe(true);
    lines.close();
  });

  it('shows a 2,000-character command whole, wrapped and never cut', async () => {
    const command = `echo '${'x'.repeat(1900)}' && npm run build && touch PWNED`;
    expect(command.length).toBeGreaterThan(1930);
    const stdin = fakeStdin(true);
    const lines = new StdinLines(stdin);
    const output = capture();
    const approve = promptApprover({ input: lines, output, cwd: workspace, width: 80 });
    const answer = approve(request('c1', 'bash', { command }));
    await until(() => output.text.endsWith('> '));
    const shown = framed(output.text.split('\n'));
    expect(shown.join('')).toBe(command);
    expect(shown.every((text) => text.length <= 76)).toBe(true);
    expect(output.text).not.toContain('…');
    stdin.write('n\n\n');
    expect(await answer).toBe('deny');
    lines.close();
  });

  it('shows the whole diff of a 200-line edit before asking, and pages it on a small terminal', async () => {
    const before = Array.from({ length: 200 }, (_, index) => `line ${index}`).join('\n');
    const after = before.replaceAll('line', 'LINE');
    await writeFile(join(workspace, 'big.txt'), `${before}\n`);
    const edit = request('c1', 'write_file', { path: 'big.txt', content: `${after}\n` });
    const view = framed(await approvalLines(edit, { cwd: workspace, width: 100, paint: plainPaint }));
    for (let index = 0; index < 200; index++) {
      expect(view).toContain(`-line ${index}`);
      expect(view).toContain(`+LINE ${index}`);
    }
    expect(view.filter((text) => /^[-+][lL]/.test(text))).toHaveLength(400);

    const stdin = fakeStdin(true);
    const lines = new StdinLines(stdin);
    const output = capture();
    const approve = promptApprover({ input: lines, output, cwd: workspace, pageRows: 300 });
    const answer = approve(edit);
    await until(() => output.text.includes('more lines: Enter shows the next page'));
    expect(output.text).not.toContain('Allow this');
    stdin.write('\n');
    await until(() => output.text.includes('Allow this write_file call?'));
    // A terminal echoes the Enter after the page prompt; this capture does not, so the line break is added.
    expect(framed(output.text.replaceAll('the question --', 'the question --\n').split('\n'))).toEqual(view);
    stdin.write('y\n');
    expect(await answer).toBe('allow');
    lines.close();
  });

  it('shows an edit as the diff it would make, and says when it cannot apply', async () => {
    await writeFile(join(workspace, 'a.js'), 'const a = 1;\nconst b = 2;\n');
    const good = request('c1', 'edit_file', { path: 'a.js', old_string: 'b = 2', new_string: 'b = 3' });
    const shown = framed(await approvalLines(good, { cwd: workspace, width: 100, paint: plainPaint }));
    expect(shown).toContain('-const b = 2;');
    expect(shown).toContain('+const b = 3;');
    const bad = request('c2', 'edit_file', { path: 'a.js', old_string: 'nope', new_string: 'yes' });
    const failing = framed(await approvalLines(bad, { cwd: workspace, width: 1000, paint: plainPaint }));
    expect(failing[0]).toMatch(/^\(this edit will fail: old_string was not found in a\.js/);
    expect(failing.slice(1)).toEqual(['-nope', '+yes']);
  });

  it('parses the answers it offers, and nothing else', () => {
    const read = (text: string) => parseAnswer(text, true);
    expect(
      ['y', 'Y', ' yes ', 'a', 'always', 'p', 'n', 'No', 'n too risky', '', 'ok', 'y please'].map(read),
    ).toEqual([
      { kind: 'allow' },
      { kind: 'allow' },
      { kind: 'allow' },
      { kind: 'session' },
      { kind: 'session' },
      { kind: 'prefix' },
      { kind: 'deny' },
      { kind: 'deny' },
      { kind: 'deny', reason: 'too risky' },
      undefined,
      undefined,
      undefined,
    ]);
    expect(parseAnswer('p', false)).toBeUndefined();
  });
});
