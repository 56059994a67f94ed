import { z } from 'zod';
import { ConfigError } from '../errors/config-error.ts';

/**
 * Parses the options a host passes to a tool factory (`codingTools({ bash: … })`): they come from
 * JavaScript callers and settings files, so they are checked once here and trusted after. A bad value is a
 * `ConfigError` naming the option, thrown at the call that passed it.
 */
export function parseToolOptions<Schema extends z.ZodType>(
  schema: Schema,
  value: unknown,
  name: string,
): z.output<Schema> {
  const parsed = schema.safeParse(value === undefined ? {} : value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const where = [name, ...issue.path.map(String)].join('.');
  throw new ConfigError(`invalid tool option ${where}: ${issue.message}`);
}

/** A whole number of at least 1 (a count, a size in bytes, a time in ms). */
export const positiveWhole = z.number().int().positive();
