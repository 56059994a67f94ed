// Requests keep their prefix: within a session, each step's request is the previous one with messages
// appended (same system prompt, same tools in the same order, same earlier messages), except after a
// compaction, a tool-list change or a mode change, each of which is logged. Checked over random sessions
// run by the real runtime (tool calls, a git workspace that changes between turns, manual compactions,
// mode switches) and over sessions recorded by the real CLI, replayed.
import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgentSystem, defineTool } from '../../src/index.ts';
import { type ScriptEntry, type ScriptStep, scripted } from '../../src/providers/scripted.ts';
import type { ModelRequest, ToolSpec } from '../../src/providers/types.ts';
import { isCompactionRequest } from '../../src/session/compaction-request.ts';
import { parseLogText } from '../../src/session/log-text.ts';
import { project } from '../../src/session/projection.ts';
import type { LogEvent } from '../../src/session/types.ts';
import { counterIds, tickingClock } from '../support/crash-kit.ts';
import { buildLog, planArbitrary } from '../support/log-arbitrary.ts';

/** Events after which a request may start afresh: each is in the log. */
const prefixBreakers = new Set(['compaction', 'mode.changed', 'mcp.tools']);

/**
 * Checks every pair of consecutive step requests against the log; returns how many kept their prefix.
 * `requests` are the step requests in order (one per `step.start`).
 */
function checkPrefixes(requests: readonly ModelRequest[], log: readonly LogEvent[]): number {
  const starts = log.flatMap((event, index) => (event.type === 'step.start' ? [index] : []));
  expect(requests).toHaveLength(starts.length);
  let kept = 0;
  for (let index = 1; index < requests.length; index++) {
    const between = log.slice(starts[index - 1], starts[index]);
    if (between.some((event) => prefixBreakers.has(event.type))) continue;
    const before = requests[index - 1]!;
    const now = requests[index]!;
    expect(now.system).toBe(before.system);
    expect(now.tools).toEqual(before.tools);
    expect(now.messages.slice(0, before.messages.length)).toEqual(before.messages);
    expect(now.messages.length).toBeGreaterThan(before.messages.length);
    kept++;
  }
  return kept;
}

const echo = defineTool({
  name: 'echo',
  description: 'Repeat the text.',
  access: 'none',
  concurrencySafe: true,
  input: z.object({ text: z.string() }),
  run: async ({ text }) => `echo ${text}`,
});

type TurnPlan = { calls: number[]; touch: boolean; compactAfter: boolean; mode: 'plan' | 'default' | null };
const turnPlan: fc.Arbitrary<TurnPlan> = fc.record({
  calls: fc.array(fc.integer({ min: 1, max: 3 }), { maxLength: 3 }),
  touch: fc.boolean(),
  compactAfter: fc.boolean(),
  mode: fc.constantFrom<TurnPlan['mode']>(null, null, 'plan', 'default'),
});

/**
 * The model's answers: each step of the plan in order, and a summary whenever it is asked for one (a
 * compaction with nothing older to summarise asks for nothing, so summaries cannot be queued).
 */
function scriptOf(turns: readonly TurnPlan[]): ScriptEntry[] {
  const steps: ScriptStep[] = [];
  turns.forEach((turn, at) => {
    for (const count of turn.calls) {
      const toolCalls = Array.from({ length: count }, (_, index) => ({
        name: 'echo',
        input: { text: `${at}.${index}` },
      }));
      steps.push({ text: 'Calling.', toolCalls });
    }
    steps.push({ text: `Turn ${at} done.` });
  });
  const answer = (request: ModelRequest): ScriptStep =>
    isCompactionRequest(request) ? { text: 'Summary so far.' } : (steps.shift() ?? { text: 'Done.' });
  return Array.from({ length: 64 }, () => answer);
}

describe('each request keeps the previous one as its prefix', () => {
  let workspace: string;
  beforeAll(async () => {
    workspace = await realpath(await mkdtemp(join(tmpdir(), 'agentchart-prefix-')));
    execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: workspace });
  });
  afterAll(() => rm(workspace, { recursive: true, force: true }));

  it('over random sessions of the real runtime (tools, a changing workspace, compactions, modes)', async () => {
    let kept = 0;
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(turnPlan, { minLength: 1, maxLength: 4 }), async (turns) => {
        runs++;
        const model = scripted(scriptOf(turns));
        const host = createAgentSystem({
          model,
          tools: [echo],
          cwd: workspace,
          ids: counterIds(),
          clock: tickingClock(Date.UTC(2026, 11, 7)),
          projectInstructions: false,
          environment: true,
          permissionMode: 'bypass',
          // Turns switch into plan mode, whose plan only a host accepts: nobody does here.
          approve: 'deny',
          compaction: { keepRecentTurns: 1 },
        });
        try {
          const agent = await host.createAgent({ id: 'a', instructions: 'Be brief.' });
          for (const [at, turn] of turns.entries()) {
            if (turn.touch) await writeFile(join(workspace, `file-${runs}-${at}.txt`), 'x');
            if (turn.mode) agent.setPermissionMode(turn.mode === 'default' ? 'bypass' : 'plan');
            await agent.run(`Turn ${at}.`);
            if (turn.compactAfter) await agent.compact();
          }
          const steps = model.requests.filter((request) => !isCompactionRequest(request));
          kept += checkPrefixes(steps, agent.log());
        } finally {
          await host.dispose();
        }
      }),
      { numRuns: 20 },
    );
    expect(runs).toBe(20);
    // Not vacuous: most pairs had nothing logged between them that allows a new prefix.
    expect(kept).toBeGreaterThan(20);
  });
});

/** The step requests a log's runtime sent: the projection of the log at each `step.start`. */
function stepRequests(events: readonly LogEvent[]): ModelRequest[] {
  const start = events[0]?.data as { config?: { system?: unknown; tools?: unknown } } | undefined;
  const config = start?.config ?? {};
  const options = {
    system: typeof config.system === 'string' ? config.system : '',
    tools: Array.isArray(config.tools) ? (config.tools as ToolSpec[]) : [],
  };
  return events.flatMap((event, index) =>
    event.type === 'step.start' ? [project(events.slice(0, index + 1), options)] : [],
  );
}

describe('each request of a recorded or generated log keeps the previous one as its prefix', () => {
  it('over the recorded sessions of test/fixtures/replay', async () => {
    const folder = join(import.meta.dirname, '../fixtures/replay');
    const files = (await readdir(folder)).filter((name) => name.endsWith('.jsonl'));
    expect(files).toHaveLength(6);
    let kept = 0;
    for (const name of files) {
      const file = join(folder, name);
      const { events } = parseLogText(await readFile(file, 'utf8'), file);
      kept += checkPrefixes(stepRequests(events), events);
    }
    expect(kept).toBeGreaterThan(5);
  });

  it('over generated logs (steering, interrupted steps, results in any order, compactions)', () => {
    let runs = 0;
    let kept = 0;
    fc.assert(
      fc.property(planArbitrary, (plan) => {
        runs++;
        const events = buildLog(plan);
        kept += checkPrefixes(stepRequests(events), events);
      }),
      { numRuns: 200 },
    );
    expect(runs).toBe(200);
    expect(kept).toBeGreaterThan(200);
  });
});
