// What a tool looks like to the runtime, checked where a host hands tools in: `defineTool` checks the
// definition; `createAgentSystem` / `createAgent` / `runJob` check the tool list (tool-list-schema.ts).
import { z } from 'zod/v4';
import { hostFunction, must, oneOf, timeoutMs } from '../core/host-schema.ts';
import { isToolInputSchema } from './tool-input.ts';

const nameRule = must('1-64 letters, digits, "_" or "-"');

export const toolName = z.string(nameRule).regex(/^[a-zA-Z0-9_-]{1,64}$/, nameRule);
export const access = oneOf(['read', 'write', 'exec', 'none']);
export const concurrencySafe = z.custom<boolean | ((input: unknown) => boolean)>(
  (value) => typeof value === 'boolean' || typeof value === 'function',
  must('true, false or a function'),
);

const inputForms =
  'a zod object schema (z.object({...})), another Standard Schema, or a JSON Schema ({ type: "object", ... })';

/** A tool's input schema in any form `defineTool` takes (see tool-input.ts). */
export const toolInputSchema = z.custom<object>(isToolInputSchema, must(inputForms));

/** The same, refusing a zod schema that is not an object: tool arguments are always a JSON object. */
export const toolObjectInputSchema = toolInputSchema.refine((value) => {
  const type = (value as { _zod?: { def?: { type?: unknown } } })._zod?.def?.type;
  return type === undefined || type === 'object';
}, must(inputForms));

/** A JSON Schema the model is shown: an object's. */
export const jsonObjectSchema = z.custom<object>(
  (value) => typeof value === 'object' && value !== null && (value as { type?: unknown }).type === 'object',
  must('a JSON Schema of an object ({ type: "object", ... })'),
);

/** The definition `defineTool` takes. */
export const toolDefinitionSchema = z.strictObject(
  {
    name: toolName,
    description: z.string(must('a string')),
    input: toolObjectInputSchema,
    jsonSchema: jsonObjectSchema.optional(),
    access,
    concurrencySafe: concurrencySafe.optional(),
    timeoutMs: timeoutMs.optional(),
    run: hostFunction,
  },
  must('a tool definition (an object)'),
);
