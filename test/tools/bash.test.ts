import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bashTool, maxBashTimeoutMs } from '../../src/tools/bash.ts';
import { checkToolInput } from '../../src/tools/tool-input.ts';
import { context, type Fixture, makeWorkspace, refusal, result } from './workspace-fixture.ts';

let fx: Fixture;
beforeEach(async () => {
  fx = await makeWorkspace();
});
afterEach(() => fx.cleanup());

const run = async (input: { command: string; timeout_ms?: number }, tool = bashTool()) =>
  result(await tool.run(input, context(fx.root)));

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
}

/** Polls until the process group is gone; no timing is asserted, only that it goes within the test timeout. */
async function waitUntilGone(pgid: number): Promise<boolean> {
  for (let attempt = 0; attempt < 150; attempt++) {
    if (!groupAlive(pgid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

// The shell prints its pid (the process-group id, as it leads its own group), then waits on two sleeps.
const lingering = 'echo "pgid=$$"; sleep 30 & sleep 30; wait';

function pgidFrom(text: string): number {
  const found = /pgid=(\d+)/.exec(text);
  if (found === null) throw new Error(`no pgid in ${JSON.stringify(text)}`);
  return Number(found[1]);
}

describe('bash', () => {
  it('runs in the workspace root and reports the exit code', async () => {
    expect(await run({ command: 'pwd' })).toEqual({ content: `${fx.root}\n[exit code 0]`, isError: false });
    expect(await run({ command: 'echo failing >&2; exit 3' })).toEqual(refusal('failing\n[exit code 3]'));
    expect(await run({ command: 'true' })).toEqual({ content: '(no output)\n[exit code 0]', isError: false });
  });

  it('interleaves stdout and stderr into one output', async () => {
    const out = await run({ command: 'echo out-1; echo err-1 >&2; echo out-2' });
    expect(out.content.split('\n').sort()).toEqual(['[exit code 0]', 'err-1', 'out-1', 'out-2']);
  });

  it('reports a command killed by a signal', async () => {
    expect(await run({ command: 'kill -KILL $$' })).toEqual(
      refusal('(no output)\n[killed by signal SIGKILL]'),
    );
  });

  it('keeps the head and the tail of long output with a note of what was cut', async () => {
    const out = await run({ command: 'seq 1 20000' }, bashTool({ outputCapBytes: 40 }));
    const total = Array.from({ length: 20000 }, (_, i) => `${i + 1}\n`).join('').length;
    expect(out.content).toBe(
      `1\n2\n3\n4\n5\n6\n7\n8\n9\n[... ${total - 36} bytes cut from the middle of the output (${total} bytes ` +
        'in all); the first 18 and last 18 bytes are shown ...]\n19998\n19999\n20000\n[exit code 0]',
    );
  });

  it('times out through its signal, says so, and leaves no process of the group behind', async () => {
    const progress: unknown[] = [];
    const out = result(
      await bashTool({ killGraceMs: 500 }).run(
        { command: lingering, timeout_ms: 400 },
        context(fx.root, { progress }),
      ),
    );
    expect(out.isError).toBe(true);
    expect(out.content).toBe(
      `pgid=${pgidFrom(out.content)}\n[timed out after 400 ms; the command and its child processes were stopped]`,
    );
    expect(progress[0]).toEqual({ type: 'bash.output', text: `pgid=${pgidFrom(out.content)}\n` });
    expect(await waitUntilGone(pgidFrom(out.content))).toBe(true);
  });

  it('stops the whole process group on abort', async () => {
    const controller = new AbortController();
    let pgid: number | undefined;
    const running = bashTool({ killGraceMs: 500 }).run(
      { command: lingering },
      context(fx.root, {
        controller,
        // Abort as soon as the shell has said who it is, while both sleeps are running.
        onProgress: (progress) => {
          pgid = pgidFrom((progress as { text: string }).text);
          controller.abort();
        },
      }),
    );
    const out = result(await running);
    expect(out).toEqual(refusal(`pgid=${pgid}\n[aborted; the command and its child processes were stopped]`));
    expect(await waitUntilGone(pgid!)).toBe(true);
  });

  it('does not start when the call is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const out = await bashTool().run({ command: 'touch should-not-exist' }, context(fx.root, { controller }));
    expect(result(out)).toEqual({ content: 'The command was not run: the call was aborted.', isError: true });
  });

  it('returns when the shell exits even if a background child keeps the output open', async () => {
    const out = await run({ command: 'echo "pgid=$$"; (sleep 30; echo late) & echo early' });
    expect(out.content).toBe(
      `pgid=${pgidFrom(out.content)}\nearly\n[exit code 0]\n` +
        '[background processes still hold the output open; what they print later is not captured]',
    );
    process.kill(-pgidFrom(out.content), 'SIGKILL');
    expect(await waitUntilGone(pgidFrom(out.content))).toBe(true);
  });

  it('validates timeout_ms against the maximum', () => {
    const tool = bashTool();
    expect(checkToolInput(tool.input, { command: 'ls', timeout_ms: maxBashTimeoutMs }).ok).toBe(true);
    expect(checkToolInput(tool.input, { command: 'ls', timeout_ms: maxBashTimeoutMs + 1 }).ok).toBe(false);
    expect(checkToolInput(tool.input, { command: '' }).ok).toBe(false);
  });
});
