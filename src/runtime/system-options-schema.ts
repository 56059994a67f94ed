// What each `createAgentSystem` option may be, as one strict zod object: an unknown key or a bad value is
// refused with its path. options-schema.ts parses with it and fills in the defaults (`SystemConfig`).
import { z } from 'zod/v4';
import type { IdGenerator } from '../core/clock.ts';
import {
  clockSchema,
  count,
  flag,
  milliseconds,
  must,
  nonEmptyString,
  positiveInteger,
} from '../core/host-schema.ts';
import { mcpServersSchema } from '../mcp/server-config.ts';
import { telemetryOptionSchema } from '../telemetry/telemetry-options.ts';
import { minMaxOutputChars } from '../tools/long-output.ts';
import { toolListSchema } from '../tools/tool-list-schema.ts';
import { hooksOptionSchema } from './hooks-option.ts';
import {
  pathSchema,
  permissionModeSchema,
  permissionRulesSchema,
  providerSchema,
  storeSchema,
} from './host-object-schemas.ts';
import type { Approver } from './options.ts';
import { replayOptionSchema } from './replay-option.ts';

const maxCharsRule = must(`a whole number of characters, at least ${minMaxOutputChars}`);
const maxChars = z.number(maxCharsRule).int(maxCharsRule).min(minMaxOutputChars, maxCharsRule);

const thresholdMessage = must('a number greater than 0 and at most 1');
const compactionSchema = z.strictObject(
  {
    enabled: flag.optional(),
    threshold: z.number(thresholdMessage).gt(0, thresholdMessage).lte(1, thresholdMessage).optional(),
    keepRecentTurns: positiveInteger.optional(),
    instructions: nonEmptyString.optional(),
    model: providerSchema.optional(),
  },
  must('an object'),
);

export const systemOptionsSchema = z.strictObject(
  {
    model: providerSchema,
    tools: toolListSchema.optional(),
    store: storeSchema.optional(),
    cwd: pathSchema.optional(),
    permissionMode: permissionModeSchema.optional(),
    permissions: z
      .strictObject(
        {
          allow: permissionRulesSchema.optional(),
          ask: permissionRulesSchema.optional(),
          deny: permissionRulesSchema.optional(),
          bypassDisabled: flag.optional(),
        },
        must('an object'),
      )
      .optional(),
    limits: z
      .strictObject(
        {
          maxSteps: positiveInteger.optional(),
          maxUnknownToolCalls: positiveInteger.optional(),
          maxParallelTools: positiveInteger.optional(),
          maxAttempts: positiveInteger.optional(),
        },
        must('an object'),
      )
      .optional(),
    retry: z
      .strictObject(
        { baseDelayMs: milliseconds.optional(), maxDelayMs: milliseconds.optional() },
        must('an object'),
      )
      .optional(),
    ids: z.custom<IdGenerator>((value) => typeof value === 'function', must('a function')).optional(),
    clock: clockSchema.optional(),
    hooks: hooksOptionSchema.optional(),
    approve: z
      .custom<Approver | 'deny'>(
        (value) => typeof value === 'function' || value === 'manual' || value === 'deny',
        must('a function, "manual" or "deny"'),
      )
      .optional(),
    projectInstructions: z
      .union([flag, z.strictObject({ home: pathSchema })], must('true, false or { home: string }'))
      .optional(),
    toolOutput: z.strictObject({ maxChars: maxChars.optional() }, must('an object')).optional(),
    subagents: z
      .strictObject(
        {
          maxDepth: count.optional(),
          maxSteps: positiveInteger.optional(),
          permissionMode: permissionModeSchema.optional(),
        },
        must('an object'),
      )
      .optional(),
    compaction: compactionSchema.optional(),
    mcpServers: mcpServersSchema.optional(),
    skills: z
      .union(
        [flag, z.strictObject({ folders: z.array(pathSchema, must('an array of folder paths')) })],
        must('a boolean or { folders: string[] }'),
      )
      .optional(),
    agents: z
      .union(
        [flag, z.strictObject({ folders: z.array(pathSchema, must('an array of folder paths')) })],
        must('a boolean or { folders: string[] }'),
      )
      .optional(),
    environment: flag.optional(),
    settings: z
      .union([z.literal('workspace'), pathSchema], must('"workspace" or the path of a settings file'))
      .optional(),
    replay: replayOptionSchema.optional(),
    models: z.record(z.string(), providerSchema, must('an object of providers by name')).optional(),
    telemetry: telemetryOptionSchema.optional(),
  },
  must('an object'),
);
