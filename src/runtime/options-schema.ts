// Parses `createAgentSystem` options into the `SystemConfig` the runtime works with. A JavaScript host has
// no type checker, so every option is checked here, once (against system-options-schema.ts), and every
// default is filled in; the runtime then trusts the result.
import { resolve } from 'node:path';
import { type Clock, defaultIds, systemClock } from '../core/clock.ts';
import { parseHostValue } from '../core/host-schema.ts';
import type { Hooks } from '../hooks/hook-types.ts';
import { commandHooksFrom } from '../hooks/settings-schema.ts';
import { defaultRetryPolicy, type RetryPolicy } from '../machines/retry-policy.ts';
import type { McpServers } from '../mcp/server-config.ts';
import { defaultPermissionMode, type PermissionMode } from '../permissions/modes.ts';
import type { PermissionRule } from '../permissions/rules.ts';
import type { Provider } from '../providers/types.ts';
import { memoryStore } from '../session/memory-store.ts';
import type { LogEvent, SessionStore } from '../session/types.ts';
import { agentDefinitionFolders } from '../settings/agent-definitions.ts';
import { readSettings, settingsFilesFor } from '../settings/settings-file.ts';
import type { LoadedSettings } from '../settings/settings-types.ts';
import { skillFolders } from '../settings/skills.ts';
import { type TelemetryConfig, telemetryConfig } from '../telemetry/telemetry-options.ts';
import type { AnyTool } from '../tools/define-tool.ts';
import { defaultMaxOutputChars } from '../tools/long-output.ts';
import type { AgentDefinitionSource } from './agent-definition-catalogue.ts';
import { hooksOf, joinHooks } from './hooks-option.ts';
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
import { replayParts } from './replay-option.ts';
import { bypassRefused, checkRuleTools } from './settings-checks.ts';
import { systemOptionsSchema } from './system-options-schema.ts';

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
  /** Who answers a call that asks; `undefined`: nobody (it is denied). */
  approve: Approver | undefined;
  /** The host said `approve: 'deny'`: nobody answers, on purpose (no check that nothing asks). */
  denyAsks: boolean;
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
  /** The folders agent definitions are read from, or the recorded session whose definitions are used. */
  agents: AgentDefinitionSource | undefined;
  /** Gather the environment block, take it from a recording, or leave it out. */
  environment: { gather: true } | { recorded: readonly LogEvent[] } | undefined;
  /** A recorded session whose tool results answer every call instead of running the tools. */
  toolResults: LogEvent[] | undefined;
  /** The recorded subagents of a replayed tree (each one re-runs from its own log). */
  subagentReplay: SubagentRecordings | undefined;
  /** OpenTelemetry traces: off, or on with the host's tracer provider (none given: the global one). */
  telemetry: TelemetryConfig;
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

function agentsConfig(
  option: boolean | { folders: string[] } | undefined,
  recorded: LogEvent[] | undefined,
  root: string,
): AgentDefinitionSource | undefined {
  if (recorded !== undefined) return { recorded };
  if (option === true) return { folders: agentDefinitionFolders(root, process.env) };
  return typeof option === 'object'
    ? { folders: option.folders.map((folder) => resolve(root, folder)) }
    : undefined;
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
    approve: parsed.approve === 'deny' ? undefined : parsed.approve,
    denyAsks: parsed.approve === 'deny',
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
    agents: agentsConfig(parsed.agents, recorded.agents, root),
    environment: recorded.environment
      ? { recorded: recorded.environment }
      : parsed.environment === true
        ? { gather: true }
        : undefined,
    telemetry: telemetryConfig(parsed.telemetry),
  };
}
