// Turns a host options plan (host-arbitrary.ts) into the real options object a plain JavaScript caller
// would pass to createAgentSystem: fresh tools, clocks and callbacks for every attempt.
import { z } from 'zod';
import { defineTool, memoryStore, systemClock } from '../../src/index.ts';
import { scripted } from '../../src/testing.ts';
import type { Field, OptionsPlan } from './host-arbitrary.ts';

/** The value a callback plan stands for: answered directly, thrown, or returned synchronously. */
function answerWith(answer: unknown): () => unknown {
  const plan = answer as { throws?: string; sync?: unknown } | undefined;
  if (plan !== null && typeof plan === 'object' && 'throws' in plan) {
    const thrown =
      plan.throws === 'error' ? new Error('callback broke') : plan.throws === 'string' ? 'broke' : undefined;
    return () => Promise.reject(thrown);
  }
  if (plan !== null && typeof plan === 'object' && 'sync' in plan) return () => plan.sync;
  return async () => answer;
}

function toolOutput(plan: unknown): () => unknown {
  if (plan === 'circular') {
    const value: Record<string, unknown> = {};
    value.self = value;
    return async () => value;
  }
  if (plan === 'function') return async () => () => 1;
  if (plan === 'symbol') return async () => Symbol('s');
  return answerWith(plan);
}

function makeTools(plan: OptionsPlan) {
  const probe = defineTool({
    name: 'probe',
    description: 'Returns something.',
    access: 'read',
    concurrencySafe: true,
    input: z.object({}),
    run: toolOutput(plan.output) as never,
  });
  const writer = defineTool({
    name: 'write_note',
    description: 'Writes a note.',
    access: 'write',
    input: z.object({ text: z.string() }),
    run: async () => 'written',
  });
  const kinds: Record<string, unknown> = {
    both: [probe, writer],
    'one-tool': probe,
    strings: ['probe'],
    duplicates: [probe, probe],
    'plain-objects': [{ name: 'probe', run: async () => '' }],
  };
  return kinds[plan.tools.plan as string];
}

function makeIds(kind: unknown): unknown {
  let n = 0;
  const answers: Record<string, () => unknown> = {
    counter: () => `id${++n}`,
    number: () => 5,
    empty: () => '',
    path: () => '../x',
    throws: () => {
      throw new Error('no ids');
    },
    'every-third-bad': () => (++n % 3 === 0 ? { n } : `id${n}`),
  };
  return answers[kind as string] ?? (kind === 'object' ? {} : kind);
}

function makeClock(kind: unknown): unknown {
  const real = { now: () => Date.now(), setTimer: systemClock.setTimer };
  const kinds: Record<string, unknown> = {
    real,
    'now-garbage': { ...real, now: () => 'soon' },
    'now-throws': {
      ...real,
      now: () => {
        throw new Error('no time');
      },
    },
    'timer-throws': {
      ...real,
      setTimer: () => {
        throw new Error('no timers');
      },
    },
    'timer-sync': {
      ...real,
      setTimer: (callback: () => void) => {
        callback();
        return 'not a function';
      },
    },
    'timer-returns-garbage': {
      ...real,
      setTimer: (callback: () => void, ms: number) => {
        setTimeout(callback, Math.min(ms, 50));
        return 42;
      },
    },
    'no-setTimer': { now: () => 0 },
    'no-now': { setTimer: systemClock.setTimer },
    function: () => 0,
  };
  return kinds[kind as string] ?? kind;
}

/** The options object for one attempt, exactly as a JavaScript caller would pass it. */
export function buildOptions(plan: OptionsPlan, workspace: string): Record<string, unknown> {
  const calls = plan.calls.map((name, index) => ({
    id: `c${index}`,
    name,
    input: name === 'write_note' ? { text: 'x' } : {},
  }));
  const models: Record<string, unknown> = {
    scripted: scripted([
      { toolCalls: calls },
      { text: 'Done.' },
      { text: 'Done again.' },
      { text: 'Still done.' },
    ]),
    'gpt-4': 'gpt-4',
    'no-stream': { name: 'x', model: 'y' },
  };
  const options: Record<string, unknown> = {
    model: models[plan.model.plan as string],
    tools: makeTools(plan),
  };
  const set = (key: string, value: unknown) => {
    if (value !== undefined) options[key] = value;
  };
  const planOf = (value: Field) => value.plan;
  set('permissionMode', planOf(plan.permissionMode));
  set('permissions', planOf(plan.permissions));
  set('limits', planOf(plan.limits));
  set('retry', planOf(plan.retry));
  const approve = planOf(plan.approve) as { answer: unknown } | unknown;
  set(
    'approve',
    approve !== null && typeof approve === 'object'
      ? answerWith((approve as { answer: unknown }).answer)
      : approve,
  );
  if (plan.ids.plan !== undefined) options.ids = makeIds(plan.ids.plan);
  if (plan.clock.plan !== undefined) options.clock = makeClock(plan.clock.plan);
  const hooks = planOf(plan.hooks);
  if (hooks !== undefined) {
    const kinds: Record<string, unknown> = {
      string: { preStep: 'x' },
      function: () => 1,
      misspelt: { prestep: () => undefined },
    };
    options.hooks =
      typeof hooks === 'object'
        ? { preStep: answerWith((hooks as { answer: unknown }).answer) }
        : kinds[hooks as string];
  }
  const cwd = planOf(plan.cwd);
  set('cwd', cwd === 'workspace' ? workspace : cwd === 'missing' ? `${workspace}/missing` : cwd);
  set('projectInstructions', planOf(plan.projectInstructions));
  set('subagents', planOf(plan.subagents));
  set('compaction', planOf(plan.compaction));
  const stores: Record<string, () => unknown> = {
    memory: memoryStore,
    'empty-object': () => ({}),
    path: () => '/tmp/sessions',
    'load-only': () => ({ load: async () => ({ events: [] }) }),
  };
  const store = planOf(plan.store);
  if (store !== undefined) options.store = stores[store as string]!();
  if (plan.extra.plan !== undefined) options[plan.extra.plan as string] = { deny: ['write_note'] };
  return options;
}
