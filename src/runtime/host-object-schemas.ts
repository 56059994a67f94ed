// Schemas for the objects and values a host hands over that more than one public call accepts: a
// provider, a store, a permission mode and its rules, a folder path. `createAgentSystem`'s
// options and the agent calls (call-schemas.ts) word a bad one alike because they share these.
import { z } from 'zod/v4';
import { hostFunction, intact, must, nonEmptyString, oneOf, positiveInteger } from '../core/host-schema.ts';
import { type PermissionMode, permissionModes } from '../permissions/modes.ts';
import { ruleProblem } from '../permissions/rules.ts';
import { modelPricesSchema } from '../providers/prices.ts';
import type { Provider } from '../providers/types.ts';
import type { SessionStore } from '../session/types.ts';

export const providerSchema = intact<Provider>(
  'a Provider (an object with string name and model and a stream function)',
  z.object({
    name: nonEmptyString,
    model: z.string(must('a string')),
    contextWindow: positiveInteger.optional(),
    // What it says of its prompt caching goes into session.start as it is: plain strings only.
    promptCache: z
      .union([z.literal(false), z.record(z.string(), z.string())], must('false or an object of strings'))
      .optional(),
    prices: modelPricesSchema.optional(),
    stream: hostFunction,
  }),
);

export const permissionModeSchema = oneOf(permissionModes as [PermissionMode, ...PermissionMode[]]);

const rule = z.string(must('a string')).superRefine((text, context) => {
  const problem = ruleProblem(text);
  if (problem !== undefined)
    context.addIssue({ code: 'custom', message: `is not a permission rule: ${problem}` });
});

/** A list of permission rules (`allow`, `ask`, `deny`), each one read as the gate will read it. */
export const permissionRulesSchema = z.array(rule, must('an array of permission rules'));

export const storeSchema = intact<SessionStore>(
  'a SessionStore',
  z.object({
    create: hostFunction,
    append: hostFunction,
    load: hostFunction,
    exists: hostFunction,
    remove: hostFunction,
    list: hostFunction,
    lock: hostFunction.optional(),
    outputsFolder: hostFunction.optional(),
  }),
);

/** A path on this machine; a NUL byte would be cut off by the operating system, so it is refused here. */
export const pathSchema = z
  .string(must('a non-empty string without NUL bytes'))
  .regex(/^[^\0]+$/, must('a non-empty string without NUL bytes'));
