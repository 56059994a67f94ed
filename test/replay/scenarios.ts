// Recorded scenarios for the replay tests. `npm run fixtures` re-records them with the scripted model;
// the test re-runs each one with the replay provider and compares the logs byte for byte.
import { z } from 'zod';
import type { SimulatedClock } from '../../src/core/clock.ts';
import type { ScriptStep } from '../../src/providers/scripted.ts';
import type { Provider } from '../../src/providers/types.ts';
import type { Agent } from '../../src/runtime/agent-handle.ts';
import { createAgentSystem } from '../../src/runtime/create-agent-system.ts';
import type { AgentSystemOptions } from '../../src/runtime/options.ts';
import type { LogEvent } from '../../src/session/types.ts';
import { defineTool } from '../../src/tools/define-tool.ts';
import { readFileTool } from '../../src/tools/read-file.ts';

export const lookup = defineTool({
  name: 'lookup',
  description: 'Looks a key up in a fixed table.',
  access: 'read',
  concurrencySafe: true,
  input: z.object({ key: z.string() }),
  run: async ({ key }) => `value of ${key}`,
});

export const record = defineTool({
  name: 'record',
  description: 'Records a note.',
  access: 'write',
  input: z.object({ note: z.string() }),
  run: async ({ note }) => `recorded ${note.length} characters`,
});

// Sixty numbered lines of 200 characters: past the 2,000-character cap of its scenario.
const report = defineTool({
  name: 'report',
  description: 'Prints a long report.',
  access: 'read',
  concurrencySafe: true,
  input: z.object({}),
  run: async () => Array.from({ length: 60 }, (_, i) => `${i + 1}: ${'#'.repeat(196)}\n`).join(''),
});

export type Scenario = {
  name: string;
  /** System options beyond the defaults below (permission mode, approver, limits). */
  options?: Partial<AgentSystemOptions>;
  /** What the scripted model answers when the scenario is recorded. */
  script: ScriptStep[];
  /** The model's context window in tokens (the scripted and replay providers have none of their own). */
  contextWindow?: number;
  drive(agent: Agent, pump: (work: Promise<unknown>) => Promise<void>): Promise<void>;
};

export const scenarios: Scenario[] = [
  {
    name: 'parallel-retry-unknown',
    script: [
      {
        text: 'Checking both keys.',
        toolCalls: [
          { id: 'c1', name: 'lookup', input: { key: 'a' } },
          { id: 'c2', name: 'lookup', input: { key: 'b' } },
        ],
      },
      { error: { kind: 'rate_limit', retryAfterMs: 250, message: 'slow down' } },
      { text: 'Recording.', toolCalls: [{ id: 'c3', name: 'record', input: { note: 'a and b' } }] },
      { text: 'All done.', usage: { inputTokens: 40, outputTokens: 7 } },
      {
        toolCalls: [
          { id: 'c4', name: 'nope', input: {} },
          { id: 'c5', name: 'lookup', input: { key: 1 } },
        ],
      },
      { text: 'Sorry: I used a tool that does not exist.' },
    ],
    async drive(agent, pump) {
      await pump(agent.run('Look up a and b, then record them.'));
      await pump(agent.run('Once more, please.'));
    },
  },
  {
    name: 'steer-and-approvals',
    options: {
      permissionMode: 'default',
      // Deterministic host decisions: notes about "a" may be recorded for the whole session, others not.
      approve: async ({ input }) =>
        (input as { note: string }).note.startsWith('a') ? 'allow_session' : 'deny',
    },
    script: [
      {
        text: 'Recording two notes.',
        toolCalls: [
          { id: 'r1', name: 'record', input: { note: 'a first' } },
          { id: 'r2', name: 'record', input: { note: 'b second' } },
        ],
      },
      { toolCalls: [{ id: 'r3', name: 'record', input: { note: 'a first' } }] },
      { text: 'Noted the steer; done.' },
    ],
    async drive(agent, pump) {
      const answer = agent.run('Record the notes.');
      // Claimed before the second step of the running turn.
      agent.steer('Keep it short.');
      await pump(answer);
    },
  },
  {
    name: 'long-tool-output',
    // The note names the saved file the same way on every machine, whichever folder holds it.
    options: { tools: [report, readFileTool()], toolOutput: { maxChars: 2_000 } },
    script: [
      { toolCalls: [{ id: 'r1', name: 'report', input: {} }] },
      {
        toolCalls: [
          {
            id: 'r2',
            name: 'read_file',
            input: { path: '/agentchart-outputs/long-tool-output/1-1-r1.txt', offset: 30, limit: 2 },
          },
        ],
      },
      { text: 'Lines 30 and 31 read.' },
    ],
    // No pump: saving and reading files is real I/O, which the pump would take for waiting on the clock.
    async drive(agent) {
      await agent.run('Report, then read the middle.');
    },
  },
];

// Retries that run out: the turn ends in model_error with the last attempt's error, and the session goes on.
scenarios.push({
  name: 'retries-exhausted',
  options: { limits: { maxAttempts: 2 } },
  script: [
    { text: 'Looking it up.', toolCalls: [{ id: 'k1', name: 'lookup', input: { key: 'k' } }] },
    { error: { kind: 'overloaded', message: 'busy' } },
    { error: { kind: 'server', message: 'upstream 502' } },
    { text: 'Back again: k has its value.' },
  ],
  async drive(agent, pump) {
    await pump(agent.run('Look up k.').catch(() => undefined));
    await pump(agent.run('Try again, please.'));
  },
});

// Compactions of all three kinds: one when the window fills up, one asked for, one after an overflow.
scenarios.push({
  name: 'compactions',
  contextWindow: 1_000,
  options: { compaction: { keepRecentTurns: 1 } },
  script: [
    { toolCalls: [{ id: 'a1', name: 'lookup', input: { key: 'a' } }], usage: { inputTokens: 300 } },
    { text: 'a is known.', usage: { inputTokens: 400 } },
    { toolCalls: [{ id: 'b1', name: 'lookup', input: { key: 'b' } }], usage: { inputTokens: 850 } },
    { text: 'Summary: a was looked up.', usage: { inputTokens: 200, outputTokens: 9 } },
    { text: 'b is known.', usage: { inputTokens: 300 } },
    { text: 'Summary: a and b were looked up.', usage: { inputTokens: 250, outputTokens: 11 } },
    { error: { kind: 'context_overflow', message: 'prompt is too long' } },
    { text: 'Summary: a and b are known; c was asked for.', usage: { inputTokens: 260, outputTokens: 14 } },
    { text: 'c is known.', usage: { inputTokens: 120 } },
  ],
  async drive(agent, pump) {
    await pump(agent.run('Look up a.'));
    await pump(agent.run('Now b.'));
    await pump(agent.compact({ instructions: 'Name every key.' }));
    await pump(agent.run('And c.'));
  },
});

// Typed runs: an answer that is not JSON and one of the wrong shape are fed back until one passes; a run
// with no retries ends `invalid_output` at its first bad answer.
const keyCount = z.object({ keys: z.array(z.string()), count: z.number().int() });
scenarios.push({
  name: 'typed-output-retry',
  script: [
    { toolCalls: [{ id: 't1', name: 'lookup', input: { key: 'a' } }] },
    { text: 'The key a has a value.' },
    { json: { keys: ['a'], count: 'one' } },
    { json: { keys: ['a'], count: 1 } },
    { json: { keys: 'b' } },
  ],
  async drive(agent, pump) {
    await pump(agent.run('Look up a, then count the keys.', { output: keyCount }));
    await pump(agent.run('And b?', { output: keyCount, maxOutputRetries: 0 }));
  },
});

/** Runs a scenario through the real runtime with a simulated clock and counter ids. */
export async function runScenario(
  scenario: Scenario,
  model: Provider,
  clock: SimulatedClock,
  /** Told about the agent as soon as it is created (before its first input). */
  onAgent?: (agent: Agent) => void,
): Promise<LogEvent[]> {
  let next = 0;
  const system = createAgentSystem({
    model: scenario.contextWindow ? { ...model, contextWindow: scenario.contextWindow } : model,
    tools: [lookup, record],
    ids: () => `id-${++next}`,
    clock,
    cwd: 'test/fixtures',
    permissionMode: 'bypass',
    projectInstructions: false,
    ...scenario.options,
  });
  const agent = await system.createAgent({ id: scenario.name });
  onAgent?.(agent);
  // Lets the runtime work; when it waits on the clock (a retry backoff), moves time to the next timer.
  const pump = async (work: Promise<unknown>) => {
    let finished = false;
    work.then(
      () => (finished = true),
      () => (finished = true),
    );
    while (!finished) {
      for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setImmediate(resolve));
      if (!finished) clock.runNext();
    }
    await work;
  };
  await scenario.drive(agent, pump);
  await system.dispose();
  return [...agent.log()];
}

export const replayClockStart = 1_767_225_600_000;
export const fixturePath = (name: string) => `test/fixtures/replay/${name}.jsonl`;
