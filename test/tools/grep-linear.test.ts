import { describe, expect, it } from 'vitest';
import { runScript } from '../support/child-run.ts';
import { readLabelled } from '../support/labelled-lines.ts';

// A backtracking engine spends ages on these patterns and holds the event loop meanwhile, so even cancel
// cannot run. The child process is killed if it overruns.
describe("grep's JavaScript search on catastrophic patterns", () => {
  it('refuses look-around, matches (a+)+$ in linear time, and a cancel stops a long search', async () => {
    const run = await runScript('test/fixtures/boundary/grep-catastrophic.ts', { timeoutMs: 20_000 });
    expect({ timedOut: run.timedOut, code: run.code, stderr: run.stderr }).toEqual({
      timedOut: false,
      code: 0,
      stderr: '',
    });
    expect(readLabelled(run.stdout)).toEqual([
      [
        '(a+)+(?=b)',
        {
          content:
            'Invalid regular expression "(a+)+(?=b)": error parsing regexp: invalid or unsupported Perl syntax: ' +
            '`(?=`. grep has no look-around ((?=, (?!, (?<=, (?<!): its engine matches in linear time, which ' +
            'look-around would break. Match the surrounding text itself, or search more broadly and read the hits.',
          isError: true,
        },
      ],
      ['(a+)+$', { content: 'No matches for "(a+)+$" in one.txt.', isError: false }],
      ['cancel mid-search', { reason: 'canceled', outcomes: ['aborted'] }],
      ['disposed', 'disposed'],
    ]);
  });
});
