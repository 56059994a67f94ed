import { z } from 'zod/v4';
import { parseHostValue } from '../core/host-schema.ts';

/**
 * Parses the options a host passes to a tool factory (`codingTools({ bash: … })`, `bashTool(…)`): they come
 * from JavaScript callers and settings files, so they are checked once here and trusted after. A bad value
 * is a `ConfigError` naming the option by its path, like every host option:
 * `codingTools: bash.killGraceMs must be a whole number of milliseconds …, got NaN`.
 */
export function parseToolOptions<Schema extends z.ZodType>(
  schema: Schema,
  value: unknown,
  name: string,
): z.output<Schema> {
  const wrapped = z.object({ [name]: schema });
  const parsed = parseHostValue('codingTools', wrapped, { [name]: value ?? {} }) as Record<string, unknown>;
  return parsed[name] as z.output<Schema>;
}
