// Random host option objects, tool outputs and callback answers, through the public API as a JavaScript
// caller would pass them. For every attempt: nothing escapes to the process, createAgentSystem either
// throws a ConfigError at once (exactly when some option is bad) or the agent runs, every tool.call in
// the log has exactly one tool.result, and the log that was written loads back.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentSystem, ConfigError, createAgentSystem, type LogEvent } from '../../src/index.ts';
import { allValid, type OptionsPlan, optionsPlanArbitrary } from '../support/host-arbitrary.ts';
import { buildOptions } from '../support/host-options.ts';

// The list test/support/process-guard.ts fills: read here after each attempt, so an escape fails (and
// shrinks) the attempt that caused it, not just the test.
const escapes = () =>
  (globalThis as Record<symbol, unknown[] | undefined>)[Symbol.for('agentchart.test.escapes')] ?? [];

let workspace = '';
beforeAll(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'agentchart-host-fuzz-'));
});
afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});

const isConfigError = (error: unknown) => ConfigError.isInstance(error) && error instanceof ConfigError;

/** Each tool.call's id with how many tool.results it got. */
function resultsPerCall(events: readonly LogEvent[]): number[] {
  const calls = events.filter((event) => event.type === 'tool.call').map((event) => event.data.callId);
  return calls.map(
    (callId) => events.filter((event) => event.type === 'tool.result' && event.data.callId === callId).length,
  );
}

/** One attempt; returns what happened, and throws when an invariant does not hold. */
async function attempt(plan: OptionsPlan): Promise<string> {
  let system: AgentSystem;
  try {
    system = createAgentSystem(buildOptions(plan, workspace) as never);
  } catch (error) {
    expect(isConfigError(error), String(error)).toBe(true);
    expect(allValid(plan), `refused valid options: ${(error as Error).message}`).toBe(false);
    return 'refused';
  }
  expect(allValid(plan), 'accepted options with a bad value').toBe(true);
  try {
    const agent = await system.createAgent({ id: 'a' }).catch((error: unknown) => {
      // A bad id from `ids` or a workspace that is not there: refused at the call, nothing left behind.
      expect(isConfigError(error), String(error)).toBe(true);
      return undefined;
    });
    if (!agent) {
      expect(await system.store.list()).toEqual([]);
      return 'createAgent refused';
    }
    await agent.run('go').catch((error: unknown) => expect(isConfigError(error), String(error)).toBe(true));
    await system.dispose();
    const loaded = (await system.store.load('a')).events;
    expect(loaded).toEqual(agent.log());
    expect(resultsPerCall(loaded).every((count) => count === 1)).toBe(true);
    return 'ran';
  } finally {
    await system.dispose();
  }
}

describe('random host options, tool outputs and callback answers', () => {
  it('never escape, throw only ConfigError at the call, pair every tool call, and write loadable logs', async () => {
    const seen = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(optionsPlanArbitrary, async (plan) => {
        const before = escapes().length;
        const outcome = await attempt(plan);
        seen.set(outcome, (seen.get(outcome) ?? 0) + 1);
        // An unhandled rejection surfaces after the microtask queue drains.
        await new Promise((resolve) => setImmediate(resolve));
        expect(escapes().slice(before)).toEqual([]);
      }),
      { numRuns: 300 },
    );
    // The generator reaches all three outcomes (a property that only ever refused would prove little).
    expect([...seen.keys()].sort()).toEqual(['createAgent refused', 'ran', 'refused']);
  });
});
