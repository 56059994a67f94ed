import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors/config-error.ts';
import { anthropic } from '../../src/providers/anthropic.ts';
import { knownContextWindow } from '../../src/providers/context-windows.ts';
import { openai } from '../../src/providers/openai.ts';
import { scripted } from '../../src/providers/scripted.ts';
import { contextWindowOf, defaultContextWindow } from '../../src/providers/types.ts';

// No request is sent: the SDK clients are built lazily, on the first stream.
const claude = (model: string, contextWindow?: unknown) =>
  anthropic({
    model,
    apiKey: 'test-key',
    ...(contextWindow !== undefined ? { contextWindow } : {}),
  } as never);
const gpt = (model: string, extra: Record<string, unknown> = {}) =>
  openai({ model, apiKey: 'test-key', ...extra } as never);

describe('known context windows', () => {
  it('knows every Claude model at 200,000 tokens, dated ids and aliases alike', () => {
    const models = [
      'claude-sonnet-4-5',
      'claude-sonnet-4-5-20250929',
      'claude-opus-4-1-20250805',
      'claude-haiku-4-5',
      'claude-3-7-sonnet-latest',
      'claude-3-5-haiku-20241022',
    ];
    expect(models.map((model) => [model, claude(model).contextWindow])).toEqual(
      models.map((model) => [model, 200_000]),
    );
  });

  it('knows the OpenAI families by prefix, the longest match first', () => {
    const expected: [string, number][] = [
      ['gpt-4o', 128_000],
      ['gpt-4o-2024-08-06', 128_000],
      ['gpt-4o-mini-2024-07-18', 128_000],
      ['gpt-4.1', 1_047_576],
      ['gpt-4.1-mini-2025-04-14', 1_047_576],
      ['gpt-4.1-nano', 1_047_576],
      ['gpt-4-turbo-2024-04-09', 128_000],
      ['gpt-4-0613', 8_192],
      ['gpt-4-32k', 32_768],
      ['gpt-3.5-turbo-0125', 16_385],
      ['o1', 200_000],
      ['o1-2024-12-17', 200_000],
      ['o1-mini-2024-09-12', 128_000],
      ['o3-mini', 200_000],
      ['o3-pro', 200_000],
      ['o4-mini-2025-04-16', 200_000],
      ['gpt-5', 400_000],
      ['gpt-5-mini-2025-08-07', 400_000],
      ['gpt-5-nano', 400_000],
      ['gpt-5-codex', 400_000],
      ['gpt-5-chat-latest', 128_000],
      ['gpt-5.1', 400_000],
      ['gpt-5.1-codex-max', 400_000],
      ['gpt-5.1-chat-latest', 128_000],
      ['gpt-5.2-2025-12-11', 400_000],
      ['gpt-5.4', 1_050_000],
    ];
    expect(expected.map(([model]) => [model, gpt(model).contextWindow])).toEqual(expected);
  });

  it('leaves models it does not know undefined, so the runtime uses its default', () => {
    const unknown = [
      claude('some-other-model'),
      gpt('qwen3:8b'),
      gpt('gpt-4.1x'),
      gpt('gpt-6'),
      gpt('o2'),
      scripted([]),
    ];
    expect(unknown.map((provider) => provider.contextWindow)).toEqual(unknown.map(() => undefined));
    expect(unknown.map(contextWindowOf)).toEqual(unknown.map(() => defaultContextWindow));
    expect(defaultContextWindow).toBe(32_000);
  });

  it('uses the OpenAI table only for OpenAI itself: another server decides its own window', () => {
    expect(gpt('gpt-4o', { baseURL: 'https://api.openai.com/v1' }).contextWindow).toBe(128_000);
    expect(gpt('gpt-4o', { baseURL: 'http://localhost:11434/v1' }).contextWindow).toBeUndefined();
    expect(gpt('gpt-4o', { baseURL: 'not a url' }).contextWindow).toBeUndefined();
  });

  it('matches a prefix only as the whole id or followed by "-"', () => {
    const table = [
      ['gpt-4', 1],
      ['gpt-4o', 2],
    ] as const;
    expect(
      ['gpt-4', 'gpt-4-x', 'gpt-4o', 'gpt-4o-x', 'gpt-4.1', 'gpt-40', 'xgpt-4'].map((model) =>
        knownContextWindow(table, model),
      ),
    ).toEqual([1, 1, 2, 2, undefined, undefined, undefined]);
  });
});

describe('the contextWindow option', () => {
  it('wins over the table, on every factory', () => {
    expect(claude('claude-sonnet-4-5', 100_000).contextWindow).toBe(100_000);
    expect(gpt('gpt-4o', { contextWindow: 64_000 }).contextWindow).toBe(64_000);
    expect(
      gpt('qwen3:8b', { baseURL: 'http://localhost:11434/v1', contextWindow: 40_960 }).contextWindow,
    ).toBe(40_960);
    expect(gpt('gpt-4o', { api: 'responses', contextWindow: 5_000 }).contextWindow).toBe(5_000);
    expect(scripted([], { contextWindow: 4_000 }).contextWindow).toBe(4_000);
  });

  it('is a positive integer, or a ConfigError naming the factory', () => {
    const attempts: [string, () => unknown][] = [
      ['anthropic', () => claude('claude-sonnet-4-5', 0)],
      ['openai', () => gpt('gpt-4o', { contextWindow: 1.5 })],
      ['openai', () => gpt('gpt-4o', { contextWindow: '128000' })],
      ['scripted', () => scripted([], { contextWindow: Number.NaN })],
      ['scripted', () => scripted([], { contextWindow: -1 } as never)],
    ];
    const messages = attempts.map(([, attempt]) => {
      try {
        attempt();
        return 'no error';
      } catch (error) {
        return ConfigError.isInstance(error) ? error.message : `not a ConfigError: ${String(error)}`;
      }
    });
    expect(messages).toEqual([
      'anthropic: contextWindow must be a positive integer, got 0',
      'openai: contextWindow must be a positive integer, got 1.5',
      'openai: contextWindow must be a positive integer, got "128000"',
      'scripted: contextWindow must be a positive integer, got NaN',
      'scripted: contextWindow must be a positive integer, got -1',
    ]);
  });
});
