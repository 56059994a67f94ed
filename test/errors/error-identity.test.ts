// Each error class is recognised by its own `Symbol.for` marker, so `isInstance` tells the classes apart
// and still works for errors made by another copy of the package (where `instanceof` fails).
import { describe, expect, expectTypeOf, it } from 'vitest';
import { WorkspaceError } from '../../src/errors/workspace-error.ts';
import {
  AgentchartError,
  AgentStateError,
  ConcurrencyError,
  ConfigError,
  LogFormatError,
  McpServerError,
  ProviderError,
  ReplayDivergenceError,
  StoreUnavailableError,
} from '../../src/index.ts';

const divergence = {
  seq: 1,
  recordedType: 'tool.result',
  replayedType: 'tool.result',
  reason: 'lookup answered differently',
  changes: [],
  recorded: 'a',
  replayed: 'b',
};
const samples = {
  AgentchartError: () => new AgentchartError('custom', 'x'),
  AgentStateError: () => new AgentStateError('x'),
  ConcurrencyError: () => new ConcurrencyError('x'),
  StoreUnavailableError: () => new StoreUnavailableError('x'),
  ConfigError: () => new ConfigError('x'),
  LogFormatError: () => new LogFormatError('x'),
  McpServerError: () => new McpServerError('github', 'x'),
  ProviderError: () => new ProviderError({ kind: 'server', message: 'x' }),
  ReplayDivergenceError: () => new ReplayDivergenceError(divergence),
  WorkspaceError: () => new WorkspaceError('outside', '../x', 'x'),
};
const classes = {
  AgentchartError,
  AgentStateError,
  ConcurrencyError,
  StoreUnavailableError,
  ConfigError,
  LogFormatError,
  McpServerError,
  ProviderError,
  ReplayDivergenceError,
  WorkspaceError,
};
type Name = keyof typeof classes;
const names = Object.keys(classes) as Name[];

/** A second evaluation of an error module, as a second copy of the package would have. */
function again<Module>(file: string): Promise<Module> {
  return import(/* @vite-ignore */ `../../src/errors/${file}.ts?copy`) as Promise<Module>;
}

/** For each class, the sample errors it claims as its instances. */
function recognised(values: Record<Name, unknown>): Record<Name, Name[]> {
  return Object.fromEntries(
    names.map((checker) => [checker, names.filter((made) => classes[checker].isInstance(values[made]))]),
  ) as Record<Name, Name[]>;
}

const expected: Record<Name, Name[]> = {
  AgentchartError: names,
  AgentStateError: ['AgentStateError'],
  ConcurrencyError: ['ConcurrencyError'],
  StoreUnavailableError: ['StoreUnavailableError'],
  ConfigError: ['ConfigError'],
  LogFormatError: ['LogFormatError'],
  McpServerError: ['McpServerError'],
  ProviderError: ['ProviderError'],
  ReplayDivergenceError: ['ReplayDivergenceError'],
  WorkspaceError: ['WorkspaceError'],
};

describe('error identity', () => {
  it('each isInstance claims its own class only; AgentchartError claims them all', () => {
    const values = Object.fromEntries(names.map((name) => [name, samples[name]()])) as Record<Name, unknown>;
    expect(recognised(values)).toEqual(expected);
    expect(ProviderError.isInstance(new ConfigError('x'))).toBe(false);
  });

  it('recognises errors made by another copy of the package, where instanceof fails', async () => {
    // A query string makes the module loader evaluate the files again: a second copy of each class.
    const copy = {
      config: await again<typeof import('../../src/errors/config-error.ts')>('config-error'),
      provider: await again<typeof import('../../src/errors/provider-error.ts')>('provider-error'),
    };
    const foreignConfig: unknown = new copy.config.ConfigError('x');
    const foreignProvider: unknown = new copy.provider.ProviderError({ kind: 'auth', message: 'x' });
    expect([
      foreignConfig instanceof ConfigError,
      ConfigError.isInstance(foreignConfig),
      ProviderError.isInstance(foreignConfig),
      AgentchartError.isInstance(foreignConfig),
      ProviderError.isInstance(foreignProvider),
      ConfigError.isInstance(foreignProvider),
    ]).toEqual([false, true, false, true, true, false]);
  });

  it('refuses values that are not errors, and markers that are not exactly true', () => {
    const forged = { [Symbol.for('agentchart.error.ConfigError')]: 'yes' };
    const values: unknown[] = [undefined, null, 'ConfigError', 42, {}, new Error('x'), forged];
    expect(values.map((value) => [ConfigError.isInstance(value), AgentchartError.isInstance(value)])).toEqual(
      values.map(() => [false, false]),
    );
  });

  it('gives every class a literal code', () => {
    expect(names.map((name) => samples[name]().code)).toEqual([
      'custom',
      'agent_state',
      'concurrency',
      'store_unavailable',
      'config',
      'log_format',
      'mcp_server',
      'provider_server',
      'replay_divergence',
      'workspace',
    ]);
    expectTypeOf(new ConfigError('x').code).toEqualTypeOf<'config'>();
    expectTypeOf(new ConcurrencyError('x').code).toEqualTypeOf<'concurrency'>();
    expectTypeOf(new StoreUnavailableError('x').code).toEqualTypeOf<'store_unavailable'>();
    expectTypeOf(new LogFormatError('x').code).toEqualTypeOf<'log_format'>();
    expectTypeOf(new AgentStateError('x').code).toEqualTypeOf<'agent_state'>();
    expectTypeOf(new ReplayDivergenceError(divergence).code).toEqualTypeOf<'replay_divergence'>();
    expectTypeOf(new WorkspaceError('outside', 'x', 'x').code).toEqualTypeOf<'workspace'>();
    expectTypeOf(new McpServerError('x', 'x').code).toEqualTypeOf<'mcp_server'>();
    expectTypeOf(
      new ProviderError({ kind: 'auth', message: 'x' }).code,
    ).toEqualTypeOf<`provider_${ProviderError['kind']}`>();
  });
});
