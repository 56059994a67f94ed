// The context windows adapters know (a factory's `contextWindow` option, parsed with its other options,
// wins over them).

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
