// The context windows adapters know, and the `contextWindow` option every provider factory takes.
import { z } from 'zod/v4';
import { parseHostValue, positiveInteger } from '../core/host-schema.ts';

/**
 * Known windows of one vendor's models, by model id prefix: `[prefix, tokens]`. A model id matches a
 * prefix when it is the prefix itself or goes on with `-` (a dated snapshot such as
 * `gpt-4o-2024-08-06`, a variant such as `claude-sonnet-4-5-20250929`); the longest match wins, so
 * `gpt-4o-mini` is told apart from `gpt-4o`.
 */
export type ContextWindowTable = readonly (readonly [prefix: string, tokens: number])[];

/** The window of `model` in `table`, or undefined for a model the table does not know. */
export function knownContextWindow(table: ContextWindowTable, model: string): number | undefined {
  let best: readonly [string, number] | undefined;
  for (const entry of table) {
    const [prefix] = entry;
    const matches = model === prefix || model.startsWith(`${prefix}-`);
    if (matches && (best === undefined || prefix.length > best[0].length)) best = entry;
  }
  return best?.[1];
}

const optionSchema = z.object({ contextWindow: positiveInteger.optional() });

/**
 * The `contextWindow` option of a provider factory, parsed where it enters: a positive integer of
 * tokens, or absent. Anything else is a `ConfigError` naming the factory
 * (`anthropic: contextWindow must be a positive integer, got 0`).
 *
 * @throws ConfigError when the value is not a positive integer.
 */
export function parseContextWindow(factory: string, value: unknown): number | undefined {
  // Read once here: a getter on the host's options object is not asked twice.
  return parseHostValue(factory, optionSchema, { contextWindow: value }).contextWindow;
}

/**
 * The window a provider reports: the host's option first, then what the adapter knows of the model;
 * undefined when neither says (the runtime then assumes `defaultContextWindow`).
 */
export function resolveContextWindow(
  factory: string,
  option: unknown,
  known: () => number | undefined,
): number | undefined {
  return parseContextWindow(factory, option) ?? known();
}
