// createAgentSystem as a plain JavaScript host calls it (no type checker): every option is parsed once,
// at the call, and a bad value is a ConfigError that names the option and what it got.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type AgentSystemOptions,
  ConfigError,
  codingTools,
  createAgentSystem,
  defineTool,
  memoryStore,
  SimulatedClock,
} from '../../src/index.ts';
import { defaultRetryPolicy } from '../../src/machines/retry-policy.ts';
import { parseSystemOptions } from '../../src/runtime/options-schema.ts';
import { scripted } from '../../src/testing.ts';

const model = scripted([{ text: 'Hi.' }]);
const echo = defineTool({
  name: 'echo',
  description: 'Repeat the text.',
  access: 'none',
  input: z.object({ text: z.string() }),
  run: async ({ text }) => text,
});

/** What a call threw: its class name and message, or 'no error'. */
function thrown(call: () => unknown): { name: string; message: string } | 'no error' {
  try {
    call();
    return 'no error';
  } catch (error) {
    return {
      name: ConfigError.isInstance(error) && error instanceof ConfigError ? 'ConfigError' : String(error),
      message: (error as Error).message,
    };
  }
}

const systemWith = (options: unknown) => () => createAgentSystem(options as never);
const withModel = (patch: Record<string, unknown>) => systemWith({ model, ...patch });

const provider = 'a Provider (an object with string name and model and a stream function)';
const limitKeys = ['maxSteps', 'maxUnknownToolCalls', 'maxParallelTools', 'maxAttempts'];
const badCounts: [unknown, string][] = [
  [Number.NaN, 'NaN'],
  [0, '0'],
  [-3, '-3'],
  [2.5, '2.5'],
  [Number.POSITIVE_INFINITY, 'Infinity'],
  ['5', '"5"'],
];

const cases: [string, () => unknown, string][] = [
  ['no options at all', systemWith(undefined), 'options must be an object, got undefined'],
  ['options that are a string', systemWith('gpt-4'), 'options must be an object, got "gpt-4"'],
  ['no model', systemWith({}), `model must be ${provider}, got undefined`],
  [
    'a model name instead of a Provider',
    systemWith({ model: 'gpt-4' }),
    `model must be ${provider}, got "gpt-4"`,
  ],
  [
    'a model without stream',
    systemWith({ model: { name: 'x', model: 'y' } }),
    'model.stream must be a function, got undefined',
  ],
  [
    'a model whose name is a number',
    systemWith({ model: { name: 5, model: 'y', stream() {} } }),
    'model.name must be a non-empty string, got 5',
  ],
  [
    'a clock without setTimer',
    withModel({ clock: { now: () => 0 } }),
    'clock.setTimer must be a function, got undefined',
  ],
  [
    'a clock without now',
    withModel({ clock: { setTimer: () => () => {} } }),
    'clock.now must be a function, got undefined',
  ],
  [
    'a clock that is a function',
    withModel({ clock: () => 0 }),
    'clock must be a Clock ({ now, setTimer }), got a function',
  ],
  [
    'permissionMode "yolo"',
    withModel({ permissionMode: 'yolo' }),
    'permissionMode must be one of "plan", "default", "accept-edits", "bypass", got "yolo"',
  ],
  [
    'permissionMode "Plan"',
    withModel({ permissionMode: 'Plan' }),
    'permissionMode must be one of "plan", "default", "accept-edits", "bypass", got "Plan"',
  ],
  [
    "deny: 'echo' instead of a list",
    withModel({ permissions: { deny: 'echo' } }),
    'permissions.deny must be an array of permission rules, got "echo"',
  ],
  [
    'a malformed allow rule',
    withModel({ permissions: { allow: ['bash(npm test'] } }),
    'permissions.allow[0] is not a permission rule: write a tool name ("read_file") or a tool name with a ' +
      'pattern in parentheses ("bash(npm test*)", "write_file(src/**)"), got "bash(npm test"',
  ],
  [
    'a rule with an empty pattern',
    withModel({ permissions: { deny: ['read_file', 'bash( )'] } }),
    'permissions.deny[1] is not a permission rule: the pattern in parentheses is empty, got "bash( )"',
  ],
  [
    'a rule that is a number',
    withModel({ permissions: { allow: [5] } }),
    'permissions.allow[0] must be a string, got 5',
  ],
  [
    'a misspelt permissions key',
    withModel({ permissions: { denny: ['bash'] } }),
    'permissions has an unknown key "denny" (did you mean "deny"?)',
  ],
  ...limitKeys.flatMap((key) =>
    badCounts.map(([value, shown]): [string, () => unknown, string] => [
      `limits.${key} = ${shown}`,
      withModel({ limits: { [key]: value } }),
      `limits.${key} must be a positive integer, got ${shown}`,
    ]),
  ),
  [
    'a misspelt limit',
    withModel({ limits: { maxStep: 3 } }),
    'limits has an unknown key "maxStep" (did you mean "maxSteps"?)',
  ],
  ...['baseDelayMs', 'maxDelayMs'].flatMap((key) =>
    [
      [Number.NaN, 'NaN'],
      [-1, '-1'],
      [0.5, '0.5'],
      [Number.POSITIVE_INFINITY, 'Infinity'],
      [2 ** 31, '2147483648'],
    ].map(([value, shown]): [string, () => unknown, string] => [
      `retry.${key} = ${shown}`,
      withModel({ retry: { [key]: value } }),
      `retry.${key} must be a whole number of milliseconds from 0 to 2147483647, got ${shown}`,
    ]),
  ),
  [
    'retry.maxAttempts (it is a limit)',
    withModel({ retry: { maxAttempts: 3 } }),
    'retry has an unknown key "maxAttempts"',
  ],
  ['approve: true', withModel({ approve: true }), 'approve must be a function, "manual" or "deny", got true'],
  [
    'approve: "auto"',
    withModel({ approve: 'auto' }),
    'approve must be a function, "manual" or "deny", got "auto"',
  ],
  ['ids that is not a function', withModel({ ids: 'abc' }), 'ids must be a function, got "abc"'],
  [
    'one tool instead of a list',
    withModel({ tools: echo }),
    'tools must be an array of tools made by defineTool, got an object',
  ],
  [
    'a tool that was not made by defineTool',
    withModel({ tools: [{ name: 'x', description: 'd', access: 'read', run: async () => '' }] }),
    'tools[0].input must be a zod object schema (z.object({...})), another Standard Schema, or a JSON Schema ({ type: "object", ... }), got undefined; tools[0].concurrencySafe must be true, false ' +
      'or a function, got undefined',
  ],
  [
    'a tool that is a string',
    withModel({ tools: ['read_file'] }),
    'tools[0] must be a tool made by defineTool, got "read_file"',
  ],
  [
    'two tools with one name',
    withModel({ tools: [echo, ...codingTools(), echo] }),
    'tools[8].name "echo" is taken by tools[0]',
  ],
  [
    'a store without methods',
    withModel({ store: { load: async () => ({ events: [] }) } }),
    'store.create must be a function, got undefined; store.append must be a function, got undefined; ' +
      'store.exists must be a function, got undefined (and 2 more)',
  ],
  [
    'a store that is a path',
    withModel({ store: '/tmp/sessions' }),
    'store must be a SessionStore, got "/tmp/sessions"',
  ],
  [
    'hooks that is a function',
    withModel({ hooks: () => undefined }),
    'hooks must be an object, got a function',
  ],
  [
    'a preStep hook that is a string',
    withModel({ hooks: { preStep: 'x' } }),
    'hooks.preStep must be a function or an array of hooks, got "x"',
  ],
  [
    'a misspelt hook',
    withModel({ hooks: { prestep: () => undefined } }),
    'hooks has an unknown key "prestep" (did you mean "preStep"?)',
  ],
  ['cwd that is a number', withModel({ cwd: 5 }), 'cwd must be a non-empty string without NUL bytes, got 5'],
  ['an empty cwd', withModel({ cwd: '' }), 'cwd must be a non-empty string without NUL bytes, got ""'],
  [
    'subagents.maxDepth = -1',
    withModel({ subagents: { maxDepth: -1 } }),
    'subagents.maxDepth must be a whole number (0 or more), got -1',
  ],
  [
    'subagents.permissionMode "yolo"',
    withModel({ subagents: { permissionMode: 'yolo' } }),
    'subagents.permissionMode must be one of "plan", "default", "accept-edits", "bypass", got "yolo"',
  ],
  [
    'projectInstructions "no"',
    withModel({ projectInstructions: 'no' }),
    'projectInstructions must be true, false or { home: string }, got "no"',
  ],
  [
    'projectInstructions { home: 5 }',
    withModel({ projectInstructions: { home: 5 } }),
    'projectInstructions must be true, false or { home: string }, got an object',
  ],
  [
    'agents "yes"',
    withModel({ agents: 'yes' }),
    'agents must be a boolean or { folders: string[] }, got "yes"',
  ],
  [
    'agents { folders: "x" }',
    withModel({ agents: { folders: '.claude/agents' } }),
    'agents must be a boolean or { folders: string[] }, got an object',
  ],
  ...(
    [
      [{ threshold: 0 }, 'compaction.threshold must be a number greater than 0 and at most 1, got 0'],
      [{ threshold: 1.5 }, 'compaction.threshold must be a number greater than 0 and at most 1, got 1.5'],
      [{ keepRecentTurns: 0 }, 'compaction.keepRecentTurns must be a positive integer, got 0'],
      [{ instructions: '' }, 'compaction.instructions must be a non-empty string, got ""'],
      [{ model: 'haiku' }, `compaction.model must be ${provider}, got "haiku"`],
      [{ enabled: 'yes' }, 'compaction.enabled must be true or false, got "yes"'],
      [{ treshold: 0.5 }, 'compaction has an unknown key "treshold" (did you mean "threshold"?)'],
    ] as const
  ).map(([compaction, message]): [string, () => unknown, string] => [
    `compaction ${JSON.stringify(compaction)}`,
    withModel({ compaction }),
    message,
  ]),
  [
    'a misspelt option (it would silently drop deny rules)',
    withModel({ permisions: { deny: ['bash'] } }),
    'unknown option "permisions" (did you mean "permissions"?)',
  ],
];

describe('createAgentSystem parses its options once and names the bad one', () => {
  it.each(cases)('%s: ConfigError', (_label, call, message) => {
    expect(thrown(call)).toEqual({ name: 'ConfigError', message: `createAgentSystem: ${message}` });
  });

  it('accepts every option at once, and keeps the objects it was given', async () => {
    const store = memoryStore();
    const options = {
      model,
      tools: [...codingTools(), echo],
      store,
      cwd: process.cwd(),
      permissionMode: 'accept-edits',
      permissions: { allow: ['bash(npm test*)'], deny: ['write_file(secrets/**)'] },
      limits: { maxSteps: 3, maxUnknownToolCalls: 1, maxParallelTools: 2, maxAttempts: 1 },
      retry: { baseDelayMs: 0, maxDelayMs: 10 },
      ids: () => 'only',
      clock: new SimulatedClock(),
      hooks: { preStep: async () => undefined },
      approve: 'manual',
      projectInstructions: false,
      subagents: { maxDepth: 0, maxSteps: 2, permissionMode: 'plan' },
      compaction: { enabled: true, threshold: 1, keepRecentTurns: 3, instructions: 'Keep paths.', model },
    } satisfies AgentSystemOptions;
    const system = createAgentSystem(options);
    expect(system.store).toBe(store);
    expect(system.limits).toEqual({
      maxSteps: 3,
      maxUnknownToolCalls: 1,
      maxParallelTools: 2,
      maxAttempts: 1,
    });
    await system.dispose();
  });
});

describe('createAgentSystem fills what the host leaves out', () => {
  it('takes the retry defaults from the one retry policy the step chart uses', () => {
    const config = parseSystemOptions({ model });
    expect({ ...config.retry, maxAttempts: config.limits.maxAttempts }).toEqual(defaultRetryPolicy);
    expect(config.retry).toEqual({ baseDelayMs: 1_000, maxDelayMs: 32_000 });
  });

  it('compacts automatically at 80 % of the window, keeping the last two turns', () => {
    expect(parseSystemOptions({ model }).compaction).toEqual({
      enabled: true,
      threshold: 0.8,
      keepRecentTurns: 2,
      instructions: undefined,
      model: undefined,
    });
  });
});
