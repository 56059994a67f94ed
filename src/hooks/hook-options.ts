// The `hooks` option of `createAgentSystem`, parsed once where it enters: per point a list of functions,
// named hooks `{ name?, timeoutMs?, run }` or command hooks `{ type: 'command', command, timeoutMs?, matcher?,
// args?, async?, if? }`.
import { z } from 'zod/v4';
import { hostFunction, must, timeoutMs } from '../core/host-schema.ts';
import { ruleProblem } from '../permissions/rules.ts';
import { matcherProblem } from './hook-matcher.ts';
import type { WiredHookPoint } from './hook-types.ts';

const matcher = z
  .string(must('a string'))
  .refine((text) => matcherProblem(text) === undefined, must('exact names or a regular expression'));

const commandHook = z.strictObject({
  type: z.literal('command'),
  command: z.string(must('a string')).min(1, must('a command line')),
  timeoutMs: timeoutMs.optional(),
  matcher: matcher.optional(),
  args: z.array(z.string(), must('an array of strings')).optional(),
  async: z.boolean(must('true or false')).optional(),
  if: z
    .string(must('a string'))
    .refine((rule) => ruleProblem(rule) === undefined, must('a permission rule'))
    .optional(),
});

/** Where a command hook's `if` means nothing (no tool call): refused, as a guard that never runs would be. */
const commandHookWithoutTools = commandHook.refine((hook) => hook.if === undefined, {
  message: '"if" applies to preTool and postTool hooks only',
  path: ['if'],
});

const hookListOf = (command: typeof commandHook | typeof commandHookWithoutTools) =>
  z
    .array(
      z.union(
        [
          hostFunction,
          z.strictObject({
            name: z.string(must('a string')).optional(),
            timeoutMs: timeoutMs.optional(),
            run: hostFunction,
          }),
          command,
        ],
        must('a function, { run } or { type: "command", command }'),
      ),
      must('an array of hooks'),
    )
    .optional();

const toolHookList = hookListOf(commandHook);
const hookList = hookListOf(commandHookWithoutTools);

/** The hook points of the `hooks` option besides `preStep` (whose single function is parsed beside them). */
export const hookListsSchema: Record<WiredHookPoint, typeof hookList | typeof toolHookList> = {
  sessionStart: hookList,
  sessionEnd: hookList,
  userMessage: hookList,
  preStep: hookList,
  request: hookList,
  requestError: hookList,
  preTool: toolHookList,
  postTool: toolHookList,
  stop: hookList,
  subagentStop: hookList,
  preCompact: hookList,
};
