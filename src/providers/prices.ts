// What tokens cost, for the estimate that `/cost`, `agentchart run` and the run result show. Prices
// change: each table says when it was read and from where, a model not in it (or a server that is not the
// vendor's own) gets no estimate rather than a wrong one, and every adapter takes `prices` to override.
import { z } from 'zod/v4';
import { ConfigError } from '../errors/config-error.ts';
import type { ModelPrices, Usage } from './types.ts';

export type { ModelPrices } from './types.ts';

type AnthropicRow = { input: number; output: number; cacheRead: number; write5m: number; write1h: number };

/**
 * Anthropic's list prices (platform.claude.com "Pricing" and the model pages, read 2026-12-07). Models
 * whose published cache prices disagree between sources, or that are billed by prompt length, are left
 * out: they get tokens only until a host passes `prices`.
 */
const anthropicTable: ReadonlyMap<string, AnthropicRow> = new Map([
  ['claude-opus-5', { input: 5, output: 25, cacheRead: 0.5, write5m: 6.25, write1h: 10 }],
  ['claude-sonnet-5', { input: 2, output: 10, cacheRead: 0.2, write5m: 2.5, write1h: 4 }],
  ['claude-opus-4-5', { input: 5, output: 25, cacheRead: 0.5, write5m: 6.25, write1h: 10 }],
  ['claude-opus-4-1', { input: 15, output: 75, cacheRead: 1.5, write5m: 18.75, write1h: 30 }],
  ['claude-opus-4-0', { input: 15, output: 75, cacheRead: 1.5, write5m: 18.75, write1h: 30 }],
  ['claude-opus-4', { input: 15, output: 75, cacheRead: 1.5, write5m: 18.75, write1h: 30 }],
  ['claude-sonnet-4-5', { input: 3, output: 15, cacheRead: 0.3, write5m: 3.75, write1h: 6 }],
  ['claude-sonnet-4-0', { input: 3, output: 15, cacheRead: 0.3, write5m: 3.75, write1h: 6 }],
  ['claude-sonnet-4', { input: 3, output: 15, cacheRead: 0.3, write5m: 3.75, write1h: 6 }],
  ['claude-haiku-4-5', { input: 1, output: 5, cacheRead: 0.1, write5m: 1.25, write1h: 2 }],
  ['claude-3-5-haiku', { input: 0.8, output: 4, cacheRead: 0.08, write5m: 1, write1h: 1.6 }],
]);

/** OpenAI's list prices (platform.openai.com "Pricing", standard tier, read 2026-12-07). */
const openaiTable: ReadonlyMap<string, Omit<ModelPrices, 'cacheWrite'>> = new Map([
  ['gpt-5', { input: 1.25, output: 10, cacheRead: 0.125 }],
  ['gpt-5-mini', { input: 0.25, output: 2, cacheRead: 0.025 }],
  ['gpt-5-nano', { input: 0.05, output: 0.4, cacheRead: 0.005 }],
  ['gpt-4.1', { input: 2, output: 8, cacheRead: 0.5 }],
  ['gpt-4.1-mini', { input: 0.4, output: 1.6, cacheRead: 0.1 }],
  ['gpt-4.1-nano', { input: 0.1, output: 0.4, cacheRead: 0.025 }],
  ['gpt-4o', { input: 2.5, output: 10, cacheRead: 1.25 }],
  ['gpt-4o-mini', { input: 0.15, output: 0.6, cacheRead: 0.075 }],
]);

// The id itself, or the id with a release date (`claude-sonnet-4-5-20250929`, `gpt-4.1-2025-04-14`); never
// a longer name that merely starts the same (`gpt-4.1-mini` is not `gpt-4.1`).
const dated = /^(.*?)(-\d{8}|-\d{4}-\d{2}-\d{2})?$/;

function lookup<T>(table: ReadonlyMap<string, T>, model: string): T | undefined {
  return table.get(model) ?? table.get(dated.exec(model)?.[1] ?? model);
}

/** Anthropic's prices for `model`, cache writes at the lifetime the adapter asks for. */
export function anthropicPrices(model: string, ttl: '5m' | '1h'): ModelPrices | undefined {
  const row = lookup(anthropicTable, model);
  if (!row) return undefined;
  const { input, output, cacheRead } = row;
  return { input, output, cacheRead, cacheWrite: ttl === '1h' ? row.write1h : row.write5m };
}

/** OpenAI's prices for `model` (a cached prefix is written at no extra cost). */
export function openaiPrices(model: string): ModelPrices | undefined {
  const row = lookup(openaiTable, model);
  return row ? { ...row, cacheWrite: row.input } : undefined;
}

const price = z.number().finite().nonnegative();
export const modelPricesSchema = z.strictObject({
  input: price,
  output: price,
  cacheRead: price,
  cacheWrite: price,
});

/** A host's `prices` option: the four prices, or `false` for no estimate. @throws ConfigError */
export function parsePrices(factory: string, value: unknown): ModelPrices | false | undefined {
  if (value === undefined || value === false) return value;
  const parsed = modelPricesSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new ConfigError(
    `${factory}: prices must be false or { input, output, cacheRead, cacheWrite } in US dollars per million tokens`,
  );
}

/** The estimated price of `usage` in US dollars. */
export function estimateCost(usage: Usage, prices: ModelPrices): number {
  const dollars =
    usage.inputTokens * prices.input +
    usage.outputTokens * prices.output +
    usage.cacheReadTokens * prices.cacheRead +
    usage.cacheWriteTokens * prices.cacheWrite;
  return dollars / 1_000_000;
}

/** The prices a log's `session.start` recorded, if it recorded well-formed ones. */
export function recordedPrices(config: Record<string, unknown>): ModelPrices | undefined {
  const parsed = modelPricesSchema.safeParse(config.prices);
  return parsed.success ? parsed.data : undefined;
}
