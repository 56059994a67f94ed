// The `hooks` option of `createAgentSystem`: the hook lists of every point (hooks/hook-options.ts), where
// `preStep` may also be the one function of its older contract. Its schema, and the lists as the runtime
// keeps them, joined with the settings files' command hooks.
import { z } from 'zod/v4';
import { must } from '../core/host-schema.ts';
import { hookListsSchema } from '../hooks/hook-options.ts';
import type { Hooks } from '../hooks/hook-types.ts';
import type { PreStepHook } from './options.ts';

export const hooksOptionSchema = z.strictObject(
  {
    ...hookListsSchema,
    // One function (its own contract, see PreStepHook), or a list of hooks like every other point.
    preStep: z
      .union(
        [z.custom<PreStepHook>((value) => typeof value === 'function'), hookListsSchema.preStep.unwrap()],
        must('a function or an array of hooks'),
      )
      .optional(),
  },
  must('an object'),
);

/** The hooks of every point as typed lists (the schema checked each one); a single `preStep` function is apart. */
export function hooksOf(hooks: Record<string, unknown> | undefined): Hooks {
  if (hooks === undefined) return {};
  const { preStep, ...lists } = hooks;
  return (Array.isArray(preStep) ? { ...lists, preStep } : lists) as Hooks;
}

/** Both sets of hooks, point by point, the first set's before the second's. */
export function joinHooks(first: Hooks, second: Hooks): Hooks {
  const joined: Record<string, unknown[]> = {};
  for (const hooks of [first, second])
    for (const [point, list] of Object.entries(hooks) as [string, unknown[] | undefined][])
      if (list !== undefined) joined[point] = [...(joined[point] ?? []), ...list];
  return joined as Hooks;
}
