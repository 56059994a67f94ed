// What `run()` tells the host about a turn: `error` (kind, message, retryable) whenever it neither
// completed nor was cancelled, and `denied`: every call of the turn that was denied, by whom and why —
// read from the log, so a resumed agent's `whenTurnEnds` says the same. Real runtime, real tools, the
// scripted model, and the OpenAI adapter against a local wire server for a provider's own error.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type AgentSystemOptions,
  codingTools,
  createAgentSystem,
  defineTool,
  memoryStore,
  type RunResult,
} from '../../src/index.ts';
import { openai } from '../../src/providers/openai.ts';
import { type ScriptEntry, scripted } from '../../src/testing.ts';
import { startOpenAIChatServer } from '../support/wire/openai-chat-server.ts';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const echo = defineTool({
  name: 'echo',
  description: 'Repeat the text.',
  access: 'none',
  input: z.object({ text: z.string() }),
  run: async ({ text }) => text,
});

async function workspace(): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'agentchart-run-result-'));
  cleanups.push(() => rm(folder, { recursive: true, force: true }));
  return folder;
}

/** Runs one turn of a fresh agent and returns its result without `usage` (counted elsewhere). */
async function runOnce(
  script: ScriptEntry[],
  options: Partial<AgentSystemOptions> = {},
  drive?: (agent: Awaited<ReturnType<ReturnType<typeof createAgentSystem>['createAgent']>>) => void,
): Promise<Omit<RunResult, 'usage'>> {
  const system = createAgentSystem({
    model: scripted(script),
    tools: [echo],
    projectInstructions: false,
    retry: { baseDelayMs: 0, maxDelayMs: 0 },
    ...options,
  });
  cleanups.push(() => system.dispose());
  const agent = await system.createAgent();
  // Before the run: an idle agent starts its turn synchronously.
  drive?.(agent);
  const running = agent.run('go');
  const { usage: _usage, ...result } = await running;
  return result;
}

const bash = (command: string, id = 'c1') => ({ id, name: 'bash', input: { command } });

describe('RunResult.error', () => {
  it('is absent when the turn completes, and when it is cancelled', async () => {
    expect(await runOnce([{ text: 'Hi.' }])).toEqual({
      reason: 'completed',
      text: 'Hi.',
      turn: 1,
      denied: [],
    });
    const canceled = await runOnce([{ text: 'Hel', held: true }], {}, (agent) => {
      agent.onLog((event) => {
        if (event.type === 'step.start') queueMicrotask(() => agent.cancel());
      });
    });
    expect(canceled).toEqual({ reason: 'canceled', text: '', turn: 1, denied: [] });
  });

  it('carries the provider error of a model failure: kind, message, retryable', async () => {
    const refused = await runOnce([{ error: { kind: 'auth', message: 'invalid x-api-key' } }]);
    expect(refused).toEqual({
      reason: 'model_error',
      text: '',
      turn: 1,
      error: { kind: 'auth', message: 'invalid x-api-key', retryable: false },
      denied: [],
    });
    const limited = await runOnce(
      [
        { error: { kind: 'rate_limit', retryAfterMs: 0 } },
        { error: { kind: 'rate_limit', retryAfterMs: 0 } },
      ],
      { limits: { maxAttempts: 2 } },
    );
    expect(limited.error).toEqual({
      kind: 'rate_limit',
      message: 'scripted rate_limit',
      retryable: true,
      retryAfterMs: 0,
    });
  });

  it('carries what an OpenAI-compatible server answered on the wire, with its status', async () => {
    const server = await startOpenAIChatServer();
    cleanups.push(() => server.close());
    server.reply({ httpError: { status: 401, message: 'Incorrect API key provided' } });
    const system = createAgentSystem({
      model: openai({ model: 'gpt-test', apiKey: 'wrong', baseURL: `${server.url}/v1` }),
      projectInstructions: false,
    });
    cleanups.push(() => system.dispose());
    const agent = await system.createAgent();
    const result = await agent.run('hi');
    expect(result.reason).toBe('model_error');
    expect(result.error).toEqual({
      kind: 'auth',
      message: expect.stringContaining('Incorrect API key provided'),
      retryable: false,
      status: 401,
    });
  });

  it('names the limit, the block or the cut that stopped the turn', async () => {
    const loop = (n: number) =>
      Array.from({ length: n }, () => ({ toolCalls: [{ name: 'echo', input: { text: 'again' } }] }));
    const unknown = { toolCalls: [{ name: 'nope', input: {} }] };
    const results = [
      await runOnce(loop(3), { limits: { maxSteps: 2 } }),
      await runOnce([unknown, unknown], { limits: { maxUnknownToolCalls: 2 } }),
      await runOnce([{ text: 'The answer is', stopReason: 'max_tokens' }]),
      await runOnce([{ text: 'x' }], { hooks: { preStep: async () => ({ veto: 'outside office hours' }) } }),
    ];
    expect(results.map(({ reason, error }) => ({ reason, error }))).toEqual([
      {
        reason: 'max_steps',
        error: {
          kind: 'max_steps',
          message: 'the turn reached its step limit (limits.maxSteps) after 2 steps',
          retryable: false,
        },
      },
      {
        reason: 'unknown_tool_limit',
        error: {
          kind: 'unknown_tool_limit',
          message:
            'the model kept calling tools that do not exist (limits.maxUnknownToolCalls steps in a row)',
          retryable: false,
        },
      },
      {
        reason: 'max_tokens',
        error: {
          kind: 'max_tokens',
          message: "the model's answer was cut off at its output token limit (maxTokens)",
          retryable: false,
        },
      },
      {
        reason: 'blocked',
        error: {
          kind: 'blocked',
          message: 'a hook blocked the turn: outside office hours',
          retryable: false,
        },
      },
    ]);
  });

  it('says a turn a crash left open was interrupted, in the resumed agent', async () => {
    const store = memoryStore();
    const first = createAgentSystem({
      model: scripted([{ text: 'Hel', held: true }]),
      store,
      projectInstructions: false,
    });
    const agent = await first.createAgent({ id: 'crashed' });
    const started = new Promise<void>((resolve) =>
      agent.onLog((event) => event.type === 'step.start' && resolve()),
    );
    // The disposal below ends this turn as the crashed process never could: its result is not looked at.
    void agent.run('go').catch(() => {});
    await started;
    // What the process had written when it died: copied to another store, as if read back after a crash.
    const survivor = memoryStore();
    await survivor.create('crashed');
    await survivor.append('crashed', [...agent.log()]);
    await first.dispose();
    const second = createAgentSystem({ model: scripted([]), store: survivor, projectInstructions: false });
    cleanups.push(() => second.dispose());
    const resumed = await second.resumeAgent('crashed');
    const { usage: _usage, ...result } = await resumed.whenTurnEnds(1);
    expect(result).toEqual({
      reason: 'interrupted',
      text: '',
      turn: 1,
      error: {
        kind: 'interrupted',
        message: 'the process stopped before the turn ended; resuming the session closed it',
        retryable: true,
      },
      denied: [],
    });
  });
});

describe('RunResult.denied', () => {
  it('lists each denied call with its tool, input, who denied it and why, in decision order', async () => {
    const cwd = await workspace();
    const result = await runOnce(
      [
        {
          toolCalls: [
            bash('rm -rf build', 'c1'),
            { id: 'c2', name: 'write_file', input: { path: 'a.txt', content: 'x' } },
            bash('npm test', 'c3'),
            { id: 'c4', name: 'echo', input: { text: 'fine' } },
          ],
        },
        { text: 'Could not.' },
      ],
      {
        cwd,
        tools: [...codingTools(), echo],
        permissionMode: 'accept-edits',
        permissions: { deny: ['bash(rm:*)', 'write_file(a.txt)'] },
        approve: async ({ input }) => ({
          outcome: 'deny',
          reason: `not now: ${(input as { command: string }).command}`,
        }),
      },
    );
    expect(result.reason).toBe('completed');
    expect(result.error).toBeUndefined();
    expect(result.denied).toEqual([
      {
        callId: 'c1',
        tool: 'bash',
        input: { command: 'rm -rf build' },
        by: 'rule',
        reason: 'denied by rule bash(rm:*)',
      },
      {
        callId: 'c2',
        tool: 'write_file',
        input: { path: 'a.txt', content: 'x' },
        by: 'rule',
        reason: 'denied by rule write_file(a.txt)',
      },
      { callId: 'c3', tool: 'bash', input: { command: 'npm test' }, by: 'host', reason: 'not now: npm test' },
    ]);
  });

  it('says who denied: a person, a preTool hook, or nobody (headless), also when a hook asked', async () => {
    const cwd = await workspace();
    const write = { id: 'w1', name: 'write_file', input: { path: 'notes.md', content: 'x' } };
    const manual = await runOnce(
      [{ toolCalls: [bash('ls')] }, { text: 'ok' }],
      {
        cwd,
        tools: codingTools(),
        approve: 'manual',
      },
      (agent) => {
        agent.onLog((event) => {
          if (event.type === 'approval.asked') queueMicrotask(() => agent.deny('c1', 'not on my machine'));
        });
      },
    );
    const hooked = await runOnce([{ toolCalls: [bash('ls')] }, { text: 'ok' }], {
      cwd,
      tools: codingTools(),
      permissionMode: 'bypass',
      hooks: {
        preTool: [{ name: 'no-shell', run: async () => ({ decision: 'deny', reason: 'no shell in CI' }) }],
      },
    });
    const asked = await runOnce([{ toolCalls: [write] }, { text: 'ok' }], {
      cwd,
      tools: codingTools(),
      permissionMode: 'bypass',
      approve: 'deny',
      hooks: { preTool: [async () => ({ decision: 'ask', reason: 'check with ops' })] },
    });
    const headless = await runOnce([{ toolCalls: [bash('ls')] }, { text: 'ok' }], {
      cwd,
      tools: codingTools(),
      approve: 'deny',
    });
    expect([manual, hooked, asked, headless].map((result) => result.denied)).toEqual([
      [{ callId: 'c1', tool: 'bash', input: { command: 'ls' }, by: 'user', reason: 'not on my machine' }],
      [
        {
          callId: 'c1',
          tool: 'bash',
          input: { command: 'ls' },
          by: 'hook',
          hook: 'no-shell',
          reason: 'no shell in CI',
        },
      ],
      [
        {
          ...denial(write),
          by: 'headless',
          reason: 'a hook asked for approval (check with ops) and nobody can approve in this session.',
        },
      ],
      [
        {
          callId: 'c1',
          tool: 'bash',
          input: { command: 'ls' },
          by: 'headless',
          reason:
            'exec access needs approval in default mode; nobody can approve it in this session (headless), so it was denied',
        },
      ],
    ]);
  });
});

function denial(call: { id: string; name: string; input: unknown }) {
  return { callId: call.id, tool: call.name, input: call.input };
}
