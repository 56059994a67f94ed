// The one schema for `createAgentSystem` options. A JavaScript host has no type checker, so every option
// is parsed here, once; the runtime then works with the resolved `SystemConfig` and trusts it.
import { resolve } from 'node:path';
import { z } from 'zod/v4';
import { type Clock, defaultIds, type IdGenerator, systemClock } from '../core/clock.ts';
import {
  count,
  flag,
  hostFunction,
  intact,
  milliseconds,
  must,
  nonEmptyString,
  oneOf,
  parseHostValue,
  plainIssue,
  positiveInteger,
} from '../core/host-schema.ts';
import { hookListsSchema } from '../hooks/hook-options.ts';
import type { Hooks } from '../hooks/hook-types.ts';
import { commandHooksFrom } from '../hooks/settings-schema.ts';
import { defaultRetryPolicy, type RetryPolicy } from '../machines/retry-policy.ts';
import { recordedServers } from '../mcp/recorded-servers.ts';
import { type McpServers, mcpServersSchema } from '../mcp/server-config.ts';
import { defaultPermissionMode, type PermissionMode, permissionModes } from '../permissions/modes.ts';
import { type PermissionRule, ruleProblem } from '../permissions/rules.ts';
import type { Provider } from '../providers/types.ts';
import { memoryStore } from '../session/memory-store.ts';
import { parseLoadedEvents } from '../session/schema.ts';
import type { LogEvent, SessionStore } from '../session/types.ts';
import { readSettings, settingsFilesFor } from '../settings/settings-file.ts';
import type { LoadedSettings } from '../settings/settings-types.ts';
import { skillFolders } from '../settings/skills.ts';
import type { AnyTool } from '../tools/define-tool.ts';
import { defaultMaxOutputChars, minMaxOutputChars } from '../tools/long-output.ts';
import { toolListSchema } from '../tools/tool-list-schema.ts';
import { checkedIds, guardedClock } from './host-guards.ts';
import {
  type Approver,
  defaultCompaction,
  defaultLimits,
  defaultSubagentLimits,
  type Limits,
  type PreStepHook,
  type SubagentLimits,
} from './options.ts';
import type { InstructionSetting } from './project-instructions.ts';
import type { SubagentRecordings } from './replay/subagent-replay.ts';
import { bypassRefused, checkRuleTools } from './settings-checks.ts';

export const providerSchema = intact<Provider>(
  'a Provider (an object with string name and model and a stream function)',
  z.object({
    name: nonEmptyString,
    model: z.string(must('a string')),
    contextWindow: positiveInteger.optional(),
    stream: hostFunction,
  }),
);

export const permissionModeSchema = oneOf(permissionModes as [PermissionMode, ...PermissionMode[]]);

const rule = z.string(must('a string')).superRefine((text, context) => {
  const problem = ruleProblem(text);
  if (problem !== undefined)
    context.addIssue({ code: 'custom', message: `is not a permission rule: ${problem}` });
});
const rules = z.array(rule, must('an array of permission rules'));

const storeSchema = intact<SessionStore>(
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

const maxCharsRule = must(`a whole number of characters, at least ${minMaxOutputChars}`);
const maxChars = z.number(maxCharsRule).int(maxCharsRule).min(minMaxOutputChars, maxCharsRule);

const clockSchema = intact<Clock>(
  'a Clock ({ now, setTimer })',
  z.object({ now: hostFunction, setTimer: hostFunction }),
);

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

/** A recorded session log (the events of one session), checked like a store's load. */
const recordedLog = z
  .custom<LogEvent[]>(Array.isArray, must('an array of log events'))
  .superRefine((value, context) => {
    try {
      parseLoadedEvents({ events: value });
    } catch (error) {
      context.addIssue(plainIssue(`must be the events of a recorded session: ${(error as Error).message}`));
    }
  });

const cwd = z
  .string(must('a non-empty string without NUL bytes'))
  .regex(/^[^\0]+$/, must('a non-empty string without NUL bytes'));

const systemOptionsSchema = z.strictObject(
  {
    model: providerSchema,
    tools: toolListSchema.optional(),
    store: storeSchema.optional(),
    cwd: cwd.optional(),
    permissionMode: permissionModeSchema.optional(),
    permissions: z
      .strictObject(
        {
          allow: rules.optional(),
          ask: rules.optional(),
          deny: rules.optional(),
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
    hooks: z
      .strictObject(
        {
          ...hookListsSchema,
          // One function (its own contract, see PreStepHook), or a list of hooks like every other point.
          preStep: z
            .union(
              [
                z.custom<PreStepHook>((value) => typeof value === 'function'),
                hookListsSchema.preStep.unwrap(),
              ],
              must('a function or an array of hooks'),
            )
            .optional(),
        },
        must('an object'),
      )
      .optional(),
    approve: z
      .custom<Approver>(
        (value) => typeof value === 'function' || value === 'manual',
        must('a function or "manual"'),
      )
      .optional(),
    projectInstructions: z
      .union([flag, z.strictObject({ home: cwd })], must('true, false or { home: string }'))
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
        [flag, z.strictObject({ folders: z.array(cwd, must('an array of folder paths')) })],
        must('a boolean or { folders: string[] }'),
      )
      .optional(),
    environment: flag.optional(),
    settings: z
      .union([z.literal('workspace'), cwd], must('"workspace" or the path of a settings file'))
      .optional(),
    replay: z
      .strictObject(
        {
          log: recordedLog,
          toolResults: z.enum(['recorded', 'live'], must('"recorded" or "live"')).optional(),
          subagents: intact<SubagentRecordings>(
            'subagent recordings ({ childSessionId, recordedAt, session })',
            z.object({ childSessionId: hostFunction, recordedAt: hostFunction, session: hostFunction }),
          ).optional(),
        },
        must('{ log: LogEvent[], toolResults?: "recorded" | "live" }'),
      )
      .optional(),
    models: z.record(z.string(), providerSchema, must('an object of providers by name')).optional(),
  },
  must('an object'),
);

/** The options after parsing, with every default filled in: what the runtime works with. */
export type SystemConfig = {
  model: Provider;
  tools: readonly AnyTool[];
  store: SessionStore;
  cwd: string;
  permissionMode: PermissionMode;
  permissions: {
    allow: readonly PermissionRule[];
    ask: readonly PermissionRule[];
    deny: readonly PermissionRule[];
    /** A settings file said `disableBypassPermissionsMode` (see `PermissionSettings.bypassDisabled`). */
    bypassDisabled: boolean;
  };
  limits: Limits;
  retry: Omit<RetryPolicy, 'maxAttempts'>;
  /** The host's generator, checked on every call; `call` names the public call that needs the id. */
  nextId: (call: string) => string;
  clock: Clock;
  preStep: PreStepHook | undefined;
  /** The hooks of the other points, as the host gave them. */
  hooks: Hooks;
  /** A recorded session whose hook decisions answer instead of running the hooks (a replay). */
  hookReplay: LogEvent[] | undefined;
  /** The models a `request` hook may switch a step to, by name. */
  models: Record<string, Provider>;
  approve: Approver | undefined;
  /** Read the instruction files (with the user's when `home` is given), take them from a recording, or none. */
  projectInstructions: InstructionSetting;
  /** Results longer than `maxChars` are saved to a file and shown cut. */
  toolOutput: { maxChars: number };
  subagents: Required<Omit<SubagentLimits, 'permissionMode'>> & Pick<SubagentLimits, 'permissionMode'>;
  compaction: CompactionConfig;
  /** The MCP servers every top-level agent starts (an agent's own `mcpServers` are added by name). */
  mcpServers: McpServers;
  /** A recorded session whose MCP tools answer instead of starting servers. */
  mcpReplay: LogEvent[] | undefined;
  /** The settings files read because the host asked (`settings` option), merged, with their sources. */
  settings: LoadedSettings | undefined;
  /**
   * The folders skills are found in (none: no skills), or the recorded session whose catalogue is used —
   * with the folders, if given too, where a recorded skill missing on this machine is looked for by name.
   */
  skills:
    | { folders: readonly string[] }
    | { recorded: readonly LogEvent[]; folders?: readonly string[] }
    | undefined;
  /** Gather the environment block, take it from a recording, or leave it out. */
  environment: { gather: true } | { recorded: readonly LogEvent[] } | undefined;
  /** A recorded session whose tool results answer every call instead of running the tools. */
  toolResults: LogEvent[] | undefined;
  /** The recorded subagents of a replayed tree (each one re-runs from its own log). */
  subagentReplay: SubagentRecordings | undefined;
};

/** The `compaction` option with its defaults filled in. */
export type CompactionConfig = {
  enabled: boolean;
  threshold: number;
  keepRecentTurns: number;
  instructions: string | undefined;
  model: Provider | undefined;
};

function skillsConfig(
  option: boolean | { folders: string[] } | undefined,
  recorded: LogEvent[] | undefined,
  root: string,
): SystemConfig['skills'] {
  const folders =
    option === true
      ? skillFolders(root, process.env)
      : typeof option === 'object'
        ? option.folders.map((folder) => resolve(root, folder))
        : undefined;
  if (recorded !== undefined) return { recorded, ...(folders !== undefined ? { folders } : {}) };
  return folders !== undefined ? { folders } : undefined;
}

function instructionsConfig(
  option: boolean | { home: string } | undefined,
  recorded: LogEvent[] | undefined,
  root: string,
): InstructionSetting {
  if (recorded !== undefined) return { recorded };
  if (option === false) return undefined;
  return { read: typeof option === 'object' ? { home: resolve(root, option.home) } : {} };
}

/** Parses `createAgentSystem` options; throws a ConfigError naming the first bad options. */
export function parseSystemOptions(options: unknown): SystemConfig {
  const parsed = parseHostValue('createAgentSystem', systemOptionsSchema, options);
  const { limits, retry, subagents, compaction } = parsed;
  const root = parsed.cwd ?? process.cwd();
  // Read once, here: a bad file throws a ConfigError naming it before anything starts.
  const settings =
    parsed.settings === undefined
      ? undefined
      : readSettings(settingsFilesFor(parsed.settings, root, process.env), { variables: process.env });
  checkRuleTools(parsed, settings);
  // The host's own options win over the settings files; rules of both apply (a deny wins over any allow).
  const permissionMode = parsed.permissionMode ?? settings?.permissions.defaultMode ?? defaultPermissionMode;
  const bypassDisabled =
    settings?.permissions.disableBypassPermissionsMode === true ||
    parsed.permissions?.bypassDisabled === true;
  if (bypassDisabled && permissionMode === 'bypass') throw bypassRefused(settings);
  const recorded = replayParts(parsed.replay);
  return {
    model: parsed.model,
    tools: parsed.tools ?? [],
    store: parsed.store ?? memoryStore(),
    cwd: root,
    permissionMode,
    permissions: {
      bypassDisabled,
      allow: [...(settings?.permissions.allow ?? []), ...(parsed.permissions?.allow ?? [])],
      ask: [...(settings?.permissions.ask ?? []), ...(parsed.permissions?.ask ?? [])],
      deny: [...(settings?.permissions.deny ?? []), ...(parsed.permissions?.deny ?? [])],
    },
    limits: {
      maxSteps: limits?.maxSteps ?? defaultLimits.maxSteps,
      maxUnknownToolCalls: limits?.maxUnknownToolCalls ?? defaultLimits.maxUnknownToolCalls,
      maxParallelTools: limits?.maxParallelTools ?? defaultLimits.maxParallelTools,
      maxAttempts: limits?.maxAttempts ?? defaultLimits.maxAttempts,
    },
    retry: {
      baseDelayMs: retry?.baseDelayMs ?? defaultRetryPolicy.baseDelayMs,
      maxDelayMs: retry?.maxDelayMs ?? defaultRetryPolicy.maxDelayMs,
    },
    nextId: checkedIds(parsed.ids ?? defaultIds),
    clock: guardedClock(parsed.clock ?? systemClock),
    preStep: typeof parsed.hooks?.preStep === 'function' ? parsed.hooks.preStep : undefined,
    // The settings files' command hooks run first at each point, then the host's own.
    hooks: joinHooks(commandHooksFrom(settings?.hooks ?? {}), hooksOf(parsed.hooks)),
    hookReplay: recorded.hooks,
    toolResults: recorded.toolResults,
    subagentReplay: parsed.replay?.subagents,
    models: parsed.models ?? {},
    approve: parsed.approve,
    projectInstructions: instructionsConfig(parsed.projectInstructions, recorded.instructions, root),
    toolOutput: { maxChars: parsed.toolOutput?.maxChars ?? defaultMaxOutputChars },
    subagents: {
      maxDepth: subagents?.maxDepth ?? defaultSubagentLimits.maxDepth,
      maxSteps: subagents?.maxSteps ?? defaultSubagentLimits.maxSteps,
      ...(subagents?.permissionMode !== undefined ? { permissionMode: subagents.permissionMode } : {}),
    },
    compaction: {
      enabled: compaction?.enabled ?? defaultCompaction.enabled,
      threshold: compaction?.threshold ?? defaultCompaction.threshold,
      keepRecentTurns: compaction?.keepRecentTurns ?? defaultCompaction.keepRecentTurns,
      instructions: compaction?.instructions,
      model: compaction?.model,
    },
    mcpServers: { ...settings?.mcpServers, ...parsed.mcpServers },
    mcpReplay: recorded.mcp,
    settings,
    skills: skillsConfig(parsed.skills, recorded.skills, root),
    environment: recorded.environment
      ? { recorded: recorded.environment }
      : parsed.environment === true
        ? { gather: true }
        : undefined,
  };
}

/**
 * What each part of the runtime takes from a recording it re-runs (the `replay` option): the log where the
 * recording has that part — its skill catalogue when it had skills, its MCP tools when it had servers —
 * and the tool results only when they are to be answered from the log.
 */
function replayParts(replay: { log: LogEvent[]; toolResults?: 'recorded' | 'live' } | undefined) {
  if (replay === undefined) return {};
  const { log } = replay;
  const config = (log[0]?.data as { config?: { skills?: unknown } } | undefined)?.config;
  return {
    hooks: log,
    instructions: log,
    environment: log,
    skills: Array.isArray(config?.skills) ? log : undefined,
    mcp: Object.keys(recordedServers(log)).length > 0 ? log : undefined,
    toolResults: replay.toolResults === 'recorded' ? log : undefined,
  };
}

/** The hooks of every point as typed lists (the schema checked each one); a single `preStep` function is apart. */
function hooksOf(hooks: Record<string, unknown> | undefined): Hooks {
  if (hooks === undefined) return {};
  const { preStep, ...lists } = hooks;
  return (Array.isArray(preStep) ? { ...lists, preStep } : lists) as Hooks;
}

/** Both sets of hooks, point by point, the first set's before the second's. */
function joinHooks(first: Hooks, second: Hooks): Hooks {
  const joined: Record<string, unknown[]> = {};
  for (const hooks of [first, second])
    for (const [point, list] of Object.entries(hooks) as [string, unknown[] | undefined][])
      if (list !== undefined) joined[point] = [...(joined[point] ?? []), ...list];
  return joined as Hooks;
}
