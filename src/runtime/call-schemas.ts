// Schemas for the arguments of the public calls other than createAgentSystem and jobs (jobs/job-schemas.ts):
// agents and the agent handle's methods. Each is parsed at the call; a bad value is a ConfigError naming the argument.
import { z } from 'zod/v4';
import {
  count,
  flag,
  hostFunction,
  must,
  nonEmptyString,
  oneOf,
  positiveInteger,
} from '../core/host-schema.ts';
import { mcpServersSchema } from '../mcp/server-config.ts';
import { type PermissionMode, permissionModes } from '../permissions/modes.ts';
import { ruleProblem } from '../permissions/rules.ts';
import type { CancelCause } from '../session/types.ts';
import { traceParentSchema } from '../telemetry/telemetry-options.ts';
import { toolListSchema } from '../tools/tool-list-schema.ts';
import { idSchema } from './host-guards.ts';
import { providerSchema } from './host-object-schemas.ts';

/** What `createAgent`, `resumeAgent`, `forkAgent` and a job's tasks may set for their agent. */
export const agentFields = {
  instructions: z.string(must('a string')).optional(),
  mcpServers: mcpServersSchema.optional(),
  tools: toolListSchema.optional(),
  model: providerSchema.optional(),
};

/** `isolation`: where the agent works (see `CreateAgentOptions.isolation`). */
export const isolationSchema = z.literal('worktree', must('"worktree"'));

/** `createAgent(options)`. */
export const createAgentSchema = z.strictObject({
  options: z
    .strictObject(
      {
        id: idSchema.optional(),
        ...agentFields,
        isolation: isolationSchema.optional(),
        traceParent: traceParentSchema.optional(),
      },
      must('an object'),
    )
    .optional(),
});

/** `resumeAgent(sessionId, options)`: the session keeps its id. */
export const resumeAgentSchema = z.strictObject({
  sessionId: idSchema,
  options: z
    .strictObject({ ...agentFields, traceParent: traceParentSchema.optional() }, must('an object'))
    .optional(),
});

/** `forkAgent(sessionId, options)`. */
export const forkAgentSchema = z.strictObject({
  sessionId: idSchema,
  options: z
    .strictObject({ id: idSchema.optional(), atSeq: count.optional(), ...agentFields }, must('an object'))
    .optional(),
});

/** The message of `run`, `followup`, `steer` and `inject`. */
export const messageSchema = z.strictObject({ message: nonEmptyString });

const cancelCauses = ['user', 'parent', 'disposed', 'hook'] as const satisfies readonly CancelCause[];

/** `agent.cancel(cause, options)`. */
export const cancelSchema = z.strictObject({
  cause: oneOf(cancelCauses).optional(),
  options: z.strictObject({ clearInbox: flag.optional() }, must('an object')).optional(),
});

/** `agent.approve(callId, options)`. */
export const approveSchema = z.strictObject({
  callId: nonEmptyString,
  options: z
    .strictObject(
      {
        remember: z.literal('session', must('"session"')).optional(),
        rule: z
          .string(must('a permission rule'))
          .refine((rule) => ruleProblem(rule) === undefined, {
            error: (issue) => `a malformed permission rule: ${ruleProblem(String(issue.input))}`,
          })
          .optional(),
        mode: oneOf(permissionModes as [PermissionMode, ...PermissionMode[]]).optional(),
      },
      must('an object'),
    )
    .refine((options) => options.rule === undefined || options.remember === 'session', {
      error: 'a rule is remembered for the session: pass remember: "session" with it',
    })
    .optional(),
});

/** `agent.setPermissionMode(mode, options)`. */
export const permissionModeCallSchema = z.strictObject({
  mode: oneOf(permissionModes as [PermissionMode, ...PermissionMode[]]),
  options: z.strictObject({ by: oneOf(['host', 'user']).optional() }, must('an object')).optional(),
});

/** `agent.whenTurnEnds(turn)`. */
export const turnSchema = z.strictObject({ turn: positiveInteger });

/** `agent.deny(callId, reason)`. */
export const denySchema = z.strictObject({
  callId: nonEmptyString,
  reason: z.string(must('a string')).optional(),
});

/** The `tool.deny` event that `agent.deny(callId, reason)` sends, from its parsed arguments. */
export function denyEvent({ callId, reason }: z.output<typeof denySchema>) {
  return { type: 'tool.deny' as const, callId, ...(reason !== undefined ? { reason } : {}) };
}

/** The `tool.approve` event that `agent.approve(callId, options)` sends, from its parsed arguments. */
export function approveEvent({ callId, options = {} }: z.output<typeof approveSchema>) {
  return {
    type: 'tool.approve' as const,
    callId,
    ...(options.remember ? { remember: options.remember } : {}),
    ...(options.rule !== undefined ? { rule: options.rule.trim() } : {}),
    ...(options.mode !== undefined ? { mode: options.mode } : {}),
  };
}

/** `agent.compact(options)`. */
export const compactSchema = z.strictObject({
  options: z.strictObject({ instructions: nonEmptyString.optional() }, must('an object')).optional(),
});

/** `agent.events(options)`. */
export const eventsSchema = z.strictObject({
  options: z.strictObject({ maxBuffered: positiveInteger.optional() }, must('an object')).optional(),
});

/** `system.inspect(observer)`: a function, or an observer object with a `next` function. */
export const inspectSchema = z.strictObject({
  observer: z.union(
    [hostFunction, z.looseObject({ next: hostFunction })],
    must('a function or an observer with a next function'),
  ),
});
