// The other public calls, with arguments a plain JavaScript caller might pass: each is parsed where it
// enters, a bad one is a ConfigError naming it (a rejection for calls that return a promise), and none
// of them writes anything the log reader would refuse.
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type Agent,
  type AgentSystem,
  ConfigError,
  createAgentSystem,
  defineTool,
  memoryStore,
} from '../../src/index.ts';
import { scripted } from '../../src/testing.ts';

const loose = (value: unknown) => value as never;

/** What a call threw or rejected with: its class and message. */
async function failure(call: () => unknown): Promise<string> {
  try {
    await call();
    return 'no error';
  } catch (error) {
    return `${ConfigError.isInstance(error) && error instanceof ConfigError ? 'ConfigError' : String(error)}: ${(error as Error).message}`;
  }
}

const systems: AgentSystem[] = [];
afterEach(async () => {
  await Promise.all(systems.splice(0).map((system) => system.dispose()));
});

function makeSystem(answers = 3) {
  let n = 0;
  const store = memoryStore();
  const system = createAgentSystem({
    model: scripted(Array.from({ length: answers }, () => ({ text: 'ok' }))),
    store,
    ids: () => `id${++n}`,
    projectInstructions: false,
    approve: 'manual',
  });
  systems.push(system);
  return { system, store };
}

const id = 'an id of 1-128 letters, digits, ".", "_" or "-" (not "." or "..")';

describe('createAgent, resumeAgent and forkAgent reject bad arguments before doing anything', () => {
  const cases: [string, (system: AgentSystem) => unknown, string][] = [
    [
      'createAgent("abc")',
      (s) => s.createAgent(loose('abc')),
      'createAgent: options must be an object, got "abc"',
    ],
    [
      'createAgent({ id: "../x" })',
      (s) => s.createAgent({ id: '../x' }),
      `createAgent: options.id must be ${id}, got "../x"`,
    ],
    [
      'createAgent({ id: 7 })',
      (s) => s.createAgent(loose({ id: 7 })),
      `createAgent: options.id must be ${id}, got 7`,
    ],
    [
      'createAgent({ instructions: 5 })',
      (s) => s.createAgent(loose({ instructions: 5 })),
      'createAgent: options.instructions must be a string, got 5',
    ],
    [
      'createAgent({ tools: "all" })',
      (s) => s.createAgent(loose({ tools: 'all' })),
      'createAgent: options.tools must be an array of tools made by defineTool, got "all"',
    ],
    [
      'createAgent({ model: {} })',
      (s) => s.createAgent(loose({ model: {} })),
      'createAgent: options.model.name must be a non-empty string, got undefined; options.model.model must be a ' +
        'string, got undefined; options.model.stream must be a function, got undefined',
    ],
    [
      'createAgent({ instruction: "typo" })',
      (s) => s.createAgent(loose({ instruction: 'typo' })),
      'createAgent: unknown option "instruction" (did you mean "instructions"?)',
    ],
    ['resumeAgent(5)', (s) => s.resumeAgent(loose(5)), `resumeAgent: sessionId must be ${id}, got 5`],
    [
      'resumeAgent("a", { id: "b" })',
      (s) => s.resumeAgent('a', loose({ id: 'b' })),
      'resumeAgent: unknown option "id"',
    ],
    [
      'forkAgent("a", { atSeq: 1.5 })',
      (s) => s.forkAgent('a', { atSeq: 1.5 }),
      'forkAgent: options.atSeq must be a whole number (0 or more), got 1.5',
    ],
    [
      'forkAgent("a", { atSeq: "3" })',
      (s) => s.forkAgent('a', loose({ atSeq: '3' })),
      'forkAgent: options.atSeq must be a whole number (0 or more), got "3"',
    ],
    [
      'forkAgent("a", { atSeq: NaN })',
      (s) => s.forkAgent('a', { atSeq: Number.NaN }),
      'forkAgent: options.atSeq must be a whole number (0 or more), got NaN',
    ],
  ];

  it.each(cases)('%s: ConfigError, nothing written', async (_label, call, message) => {
    const { system, store } = makeSystem();
    expect(await failure(() => call(system))).toEqual(`ConfigError: ${message}`);
    expect(await store.list()).toEqual([]);
  });
});

describe('runJob checks its options at the call', () => {
  const cases: [string, unknown, string][] = [
    [
      'tasks that are a string',
      { tasks: 'fix it', concurrency: 1 },
      'tasks must be an array of tasks, got "fix it"',
    ],
    ['concurrency 0', { tasks: [], concurrency: 0 }, 'concurrency must be a positive integer, got 0'],
    [
      'concurrency NaN',
      { tasks: [], concurrency: Number.NaN },
      'concurrency must be a positive integer, got NaN',
    ],
    [
      'a prompt that is a number',
      { tasks: [{ prompt: 'a' }, { prompt: 5 }], concurrency: 1 },
      'tasks[1].prompt must be a non-empty string, got 5',
    ],
    [
      'a task with a bad id',
      { tasks: [{ prompt: 'a', id: 'a b' }], concurrency: 1 },
      `tasks[0].id must be ${id}, got "a b"`,
    ],
    [
      'onProgress that is not a function',
      { tasks: [], concurrency: 1, onProgress: 'log' },
      'onProgress must be a function, got "log"',
    ],
    [
      'a signal that is not an AbortSignal',
      { tasks: [], concurrency: 1, signal: {} },
      'signal must be an AbortSignal, got an object',
    ],
  ];

  it.each(cases)('%s: ConfigError', async (_label, options, message) => {
    const { system, store } = makeSystem();
    expect(await failure(() => system.runJob(loose(options)))).toEqual(`ConfigError: runJob: ${message}`);
    expect(await store.list()).toEqual([]);
  });

  it('job.cancel with an index that names no task: ConfigError', async () => {
    const { system } = makeSystem();
    const job = system.runJob({ tasks: [{ prompt: 'a' }], concurrency: 1 });
    expect(await failure(() => job.cancel(loose('0')))).toEqual(
      'ConfigError: job.cancel: index must be a whole number (0 or more), got "0"',
    );
    expect(await failure(() => job.cancel(3))).toEqual(
      'ConfigError: job.cancel: index 3 names no task (the job has 1)',
    );
    expect((await job.result).map((result) => result.reason)).toEqual(['completed']);
  });
});

describe("an agent's methods check their arguments", () => {
  async function liveAgent(): Promise<{ agent: Agent; store: ReturnType<typeof memoryStore> }> {
    const { system, store } = makeSystem();
    return { agent: await system.createAgent({ id: 'a' }), store };
  }

  it('run/followup/steer/inject with a non-string: ConfigError (run rejects), nothing queued', async () => {
    const { agent, store } = await liveAgent();
    const message = (call: string, shown: string) =>
      `ConfigError: agent.${call}: message must be a non-empty string, got ${shown}`;
    expect(await failure(() => agent.run(loose(5)))).toEqual(message('run', '5'));
    expect(await failure(() => agent.followup(loose({ text: 'hi' })))).toEqual(
      message('followup', 'an object'),
    );
    expect(await failure(() => agent.steer(loose(undefined)))).toEqual(message('steer', 'undefined'));
    expect(await failure(() => agent.inject(loose(null)))).toEqual(message('inject', 'null'));
    expect(await failure(() => agent.inject(''))).toEqual(message('inject', '""'));
    expect(agent.log().map((event) => event.type)).toEqual(['session.start']);
    expect((await agent.run('fine')).reason).toBe('completed');
    expect((await store.load('a')).events).toEqual(agent.log());
  });

  it('cancel with an unknown cause or bad options: ConfigError, and the log stays loadable', async () => {
    const { agent, store } = await liveAgent();
    expect(await failure(() => agent.cancel(loose('oops')))).toEqual(
      'ConfigError: agent.cancel: cause must be one of "user", "parent", "disposed", "hook", got "oops"',
    );
    expect(await failure(() => agent.cancel('user', loose({ clearInbox: 'yes' })))).toEqual(
      'ConfigError: agent.cancel: options.clearInbox must be true or false, got "yes"',
    );
    agent.cancel();
    await agent.dispose();
    expect((await store.load('a')).events).toEqual(agent.log());
  });

  it('approve/deny with bad arguments: ConfigError; a denial reason must be a string', async () => {
    const { agent } = await liveAgent();
    expect(await failure(() => agent.approve(loose(5)))).toEqual(
      'ConfigError: agent.approve: callId must be a non-empty string, got 5',
    );
    expect(await failure(() => agent.approve('c1', loose({ remember: 'forever' })))).toEqual(
      'ConfigError: agent.approve: options.remember must be "session", got "forever"',
    );
    expect(await failure(() => agent.deny('c1', loose(5)))).toEqual(
      'ConfigError: agent.deny: reason must be a string, got 5',
    );
    expect(await failure(() => agent.deny(loose(undefined)))).toEqual(
      'ConfigError: agent.deny: callId must be a non-empty string, got undefined',
    );
  });

  it('events with a bad maxBuffered: ConfigError', async () => {
    const { agent } = await liveAgent();
    expect(await failure(() => agent.events({ maxBuffered: 0 }))).toEqual(
      'ConfigError: agent.events: options.maxBuffered must be a positive integer, got 0',
    );
  });
});

describe('defineTool checks the definition', () => {
  const good = {
    name: 'weather',
    description: 'Current weather.',
    access: 'read',
    input: z.object({ city: z.string() }),
    run: async () => 'sunny',
  };
  const cases: [string, unknown, string][] = [
    [
      'no definition',
      undefined,
      'defineTool: definition must be a tool definition (an object), got undefined',
    ],
    [
      'a name with spaces',
      { ...good, name: 'get weather' },
      'defineTool("get weather"): name must be 1-64 letters, digits, "_" or "-", got "get weather"',
    ],
    [
      'no description',
      { ...good, description: undefined },
      'defineTool("weather"): description must be a string, got undefined',
    ],
    [
      'an input that is not a zod object',
      { ...good, input: z.string() },
      'defineTool("weather"): input must be a zod object schema (z.object({...})), another Standard Schema, or a JSON Schema ({ type: "object", ... }), got an object',
    ],
    [
      'a JSON Schema that is not of an object',
      { ...good, input: { type: 'string' } },
      'defineTool("weather"): input must be a zod object schema (z.object({...})), another Standard Schema, or a JSON Schema ({ type: "object", ... }), got an object',
    ],
    [
      'access "admin"',
      { ...good, access: 'admin' },
      'defineTool("weather"): access must be one of "read", "write", "exec", "none", got "admin"',
    ],
    [
      'concurrencySafe "yes"',
      { ...good, concurrencySafe: 'yes' },
      'defineTool("weather"): concurrencySafe must be true, false or a function, got "yes"',
    ],
    [
      'timeoutMs -1',
      { ...good, timeoutMs: -1 },
      'defineTool("weather"): timeoutMs must be a whole number of milliseconds from 1 to 2147483647, got -1',
    ],
    [
      'timeoutMs Infinity',
      { ...good, timeoutMs: Number.POSITIVE_INFINITY },
      'defineTool("weather"): timeoutMs must be a whole number of milliseconds from 1 to 2147483647, got Infinity',
    ],
    ['no run', { ...good, run: undefined }, 'defineTool("weather"): run must be a function, got undefined'],
    [
      'a misspelt key',
      { ...good, timeout: 5 },
      'defineTool("weather"): definition has an unknown key "timeout" (did you mean "timeoutMs"?)',
    ],
    [
      'an input JSON Schema cannot express',
      { ...good, input: z.object({ when: z.date() }) },
      'defineTool("weather"): input cannot be described to the model: Date cannot be represented in JSON Schema',
    ],
  ];

  it.each(cases)('%s: ConfigError', async (_label, definition, message) => {
    expect(await failure(() => defineTool(loose(definition)))).toEqual(`ConfigError: ${message}`);
  });
});
