import type { LogEvent } from '../session/types.ts';

export type CompactLimits = {
  /** Longer strings are cut and end with a note of how much was left out (default 4000). */
  maxString: number;
  /** Deeper values become the string `"…"` (default 8). */
  maxDepth: number;
  /** Longer arrays and objects keep this many entries plus a note (default 200). */
  maxEntries: number;
};

export const defaultCompactLimits: CompactLimits = { maxString: 4_000, maxDepth: 8, maxEntries: 200 };

/**
 * A JSON-safe copy of `value` with a bounded size: long strings cut, deep or wide structures trimmed,
 * cycles, functions, symbols and bigints turned into short strings. The inspector sends nothing else.
 */
export function compactValue(value: unknown, limits: CompactLimits = defaultCompactLimits): unknown {
  return compact(value, limits, 0, new Set());
}

function compact(value: unknown, limits: CompactLimits, depth: number, seen: Set<object>): unknown {
  switch (typeof value) {
    case 'string':
      return cutString(value, limits.maxString);
    case 'number':
      return Number.isFinite(value) ? value : String(value);
    case 'boolean':
      return value;
    case 'undefined':
      return null;
    case 'bigint':
      return `${value}n`;
    case 'symbol':
    case 'function':
      return `[${typeof value}]`;
  }
  if (value === null) return null;
  const object = value as object;
  if (seen.has(object)) return '[circular]';
  if (depth >= limits.maxDepth) return '…';
  seen.add(object);
  try {
    if (Array.isArray(object)) {
      const items = object.slice(0, limits.maxEntries).map((item) => compact(item, limits, depth + 1, seen));
      if (object.length > limits.maxEntries) items.push(`… ${object.length - limits.maxEntries} more`);
      return items;
    }
    if (object instanceof Error)
      return { name: object.name, message: cutString(object.message, limits.maxString) };
    const entries = Object.entries(object);
    const result: Record<string, unknown> = {};
    for (const [key, item] of entries.slice(0, limits.maxEntries)) {
      result[key] = compact(item, limits, depth + 1, seen);
    }
    if (entries.length > limits.maxEntries) result['…'] = `${entries.length - limits.maxEntries} more`;
    return result;
  } finally {
    seen.delete(object);
  }
}

export function cutString(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}… (${text.length - max} more characters)`;
}

/** A log event with its data compacted; the envelope fields are kept as they are. */
export function compactLogEvent(event: LogEvent, limits: CompactLimits = defaultCompactLimits): LogEvent {
  return { ...event, data: compactValue(event.data, limits) as Record<string, unknown> };
}
