import { describe, expect, it } from 'vitest';
import { runScript } from '../support/child-run.ts';
import { readLabelled } from '../support/labelled-lines.ts';

// Each scenario runs in a child process that finds the command's processes through /proc by a tag in their
// environment, independently of how the bash tool finds them, and kills any survivor itself.
describe.runIf(process.platform === 'linux')('bash leaves no process behind on Linux', () => {
  const cancelled = (scenario: string) =>
    it(`after cancel: ${scenario}`, { timeout: 40_000 }, async () => {
      const run = await runScript('test/fixtures/boundary/bash-escape.ts', {
        args: [scenario],
        timeoutMs: 35_000,
      });
      expect({ timedOut: run.timedOut, code: run.code, stderr: run.stderr }).toEqual({
        timedOut: false,
        code: 0,
        stderr: '',
      });
      expect(readLabelled(run.stdout)).toEqual([
        ['escaped processes started', true],
        ['run', { reason: 'canceled', outcome: 'aborted' }],
        ['survivors', []],
      ]);
    });

  cancelled('setsid');
  cancelled('double fork');
  cancelled('nohup');
  cancelled('forking loop');
  cancelled('cleared environment');
  cancelled('ignores SIGTERM');

  it('after timeout_ms: setsid', { timeout: 40_000 }, async () => {
    const run = await runScript('test/fixtures/boundary/bash-escape.ts', {
      args: ['timeout'],
      timeoutMs: 35_000,
    });
    expect({ timedOut: run.timedOut, code: run.code, stderr: run.stderr }).toEqual({
      timedOut: false,
      code: 0,
      stderr: '',
    });
    expect(readLabelled(run.stdout)).toEqual([
      ['escaped processes started', true],
      ['run', { reason: 'completed', outcome: 'error' }],
      ['survivors', []],
    ]);
  });
});
