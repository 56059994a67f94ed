// What a tool looks like to the runtime, checked where a host hands tools in: `defineTool` checks the
// definition, `createAgentSystem` / `createAgent` / `runJob` check the tool list.
import { z } from 'zod';
import { hostFunction, intact, must, oneOf, plainIssue, timeoutMs } from '../core/host-schema.ts';
import type { AnyTool } from './define-tool.ts';

const nameRule = must('1-64 letters, digits, "_" or "-"');

export const toolName = z.string(nameRule).regex(/^[a-zA-Z0-9_-]{1,64}$/, nameRule);
const access = oneOf(['read', 'write', 'exec', 'none']);
const concurrencySafe = z.custom<boolean | ((input: unknown) => boolean)>(
  (value) => typeof value === 'boolean' || typeof value === 'function',
  must('true, false or a function'),
);

/** Any zod schema (from this copy of zod or the host's): something with `safeParse`. */
const zodSchema = z.custom<z.ZodType>(
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

const toolShape = z.object({
  name: toolName,
  description: z.string(must('a string')),
  input: zodSchema,
  access,
  concurrencySafe,
  timeoutMs: timeoutMs.optional(),
  run: hostFunction,
});

/** A list of tools as `defineTool` makes them, names unique. */
export const toolListSchema = z
  .array(
    intact<AnyTool>('a tool made by defineTool', toolShape),
    must('an array of tools made by defineTool'),
  )
  .superRefine((tools, context) => {
    const seen = new Map<string, number>();
    tools.forEach((tool, index) => {
      const name = (tool as { name?: unknown } | undefined)?.name;
      if (typeof name !== 'string') return;
      const first = seen.get(name);
      if (first === undefined) seen.set(name, index);
      else context.addIssue(plainIssue(`"${name}" is taken by tools[${first}]`, [index, 'name']));
    });
  });
