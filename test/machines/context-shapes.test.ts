// XState copies a machine's context on every `assign`. V8 keeps an object with too many properties (about
// 18, depending on how it was built) as a slow dictionary, and a copy of one is ~20× dearer: a turn
// context of 20 fields once cost ~20 µs per step. This keeps every chart's context a fast object, through
// tool calls and an automatic compaction, checked by V8 itself in a child process.
import { describe, expect, it } from 'vitest';
import { runScript } from '../support/child-run.ts';

describe('machine contexts', () => {
  it('keep fast properties, and so do their copies, in every chart', async () => {
    const run = await runScript('test/fixtures/perf/context-shapes.ts', {
      nodeArgs: ['--allow-natives-syntax'],
    });
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    const { compactions, machines } = JSON.parse(run.stdout) as {
      compactions: number;
      machines: Record<string, { fields: number; fast: boolean }>;
    };
    expect(compactions).toBe(1);
    // The host is plain actor logic with no context (src/runtime/host.ts).
    expect(Object.keys(machines)).toEqual(['agent', 'step', 'toolBatch', 'turn']);
    for (const [machine, shape] of Object.entries(machines))
      expect({ machine, fast: shape.fast }).toEqual({ machine, fast: true });
  });
});
