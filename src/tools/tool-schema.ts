// What a tool looks like to the runtime, checked where a host hands tools in: `defineTool` checks the
// definition; `createAgentSystem` / `createAgent` / `runJob` check the tool list (tool-list-schema.ts).
import { z } from 'zod';
import { hostFunction, must, oneOf, timeoutMs } from '../core/host-schema.ts';

const nameRule = must('1-64 letters, digits, "_" or "-"');

export const toolName = z.string(nameRule).regex(/^[a-zA-Z0-9_-]{1,64}$/, nameRule);
export const access = oneOf(['read', 'write', 'exec', 'none']);
export const concurrencySafe = z.custom<boolean | ((input: unknown) => boolean)>(
  (value) => typeof value === 'boolean' || typeof value === 'function',
  must('true, false or a function'),
);

/** Any zod schema (from this copy of zod or the host's): something with `safeParse`. */
export const zodSchema = z.custom<z.ZodType>(
  (value) => typeof (value as { safeParse?: unknown } | null)?.safeParse === 'function',
  must('a zod schema'),
);

/** A zod object schema: tool arguments are always a JSON object. */
export const zodObjectSchema = z.custom<z.ZodObject>(
  (value) =>
    typeof (value as { safeParse?: unknown } | null)?.safeParse === 'function' &&
    (value as { _zod?: { def?: { type?: unknown } } })._zod?.def?.type === 'object',
  must('a zod object schema (z.object({...}))'),
);

/** The definition `defineTool` takes. */
export const toolDefinitionSchema = z.strictObject(
  {
    name: toolName,
    description: z.string(must('a string')),
    input: zodObjectSchema,
    access,
    concurrencySafe: concurrencySafe.optional(),
    timeoutMs: timeoutMs.optional(),
    run: hostFunction,
  },
  must('a tool definition (an object)'),
);
