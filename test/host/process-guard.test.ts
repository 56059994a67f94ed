// The process guard (a setup file of every test run) is itself tested: a child vitest runs three cases
// under it, and only the one that let nothing out may pass, each failure naming what escaped.
import { describe, expect, it } from 'vitest';
import { runScript } from '../support/child-run.ts';

describe('the process guard of the test setup', () => {
  it('fails the test during which a rejection or an exception escaped, and names it', async () => {
    const run = await runScript('node_modules/vitest/vitest.mjs', {
      args: ['run', '--config', 'test/fixtures/guard/vitest.config.ts'],
      env: { NO_COLOR: '1', CI: '1' },
      timeoutMs: 60_000,
    });
    expect(run.timedOut).toBe(false);
    expect(run.code).toBe(1);
    const out = run.stdout + run.stderr;
    expect(out).toMatch(/✓ .*lets nothing out/);
    expect(out).toMatch(/× .*lets a rejection escape/);
    expect(out).toMatch(/× .*lets an exception escape/);
    expect(out).toContain('unhandledRejection: Error: rejection nobody handled');
    expect(out).toContain('uncaughtException: Error: exception thrown from a callback');
    expect(out).toMatch(/Tests\s+2 failed \| 1 passed \(3\)/);
  }, 70_000);
});
