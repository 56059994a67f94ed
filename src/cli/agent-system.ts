// The one place the CLI turns flags into an agent system: workspace, model, permission mode, where session
// logs go, the tools and who answers approvals. `run`, `resume` and `job` all start here.
import { stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { relative, resolve } from 'node:path';
import { ConfigError } from '../errors/config-error.ts';
import type { Hooks } from '../hooks/hook-types.ts';
import { commandHooksFrom } from '../hooks/settings-schema.ts';
import type { McpServers } from '../mcp/server-config.ts';
import { defaultPermissionMode, type PermissionMode } from '../permissions/modes.ts';
import { ruleProblem } from '../permissions/rules.ts';
import type { Provider } from '../providers/types.ts';
import { type AgentSystem, createAgentSystem } from '../runtime/create-agent-system.ts';
import type { AgentSystemOptions } from '../runtime/options.ts';
import { bypassRefused } from '../runtime/settings-checks.ts';
import type { SessionStore } from '../session/types.ts';
import { loadSettings } from '../settings/settings-file.ts';
import type { LoadedSettings } from '../settings/settings-types.ts';
import { skillFolders } from '../settings/skills.ts';
import { checkToolNames, settingsEntries } from '../settings/tool-name-check.ts';
import { codingTools } from '../tools/coding-tools.ts';
import { taskTool } from '../tools/task.ts';
import { CliError } from './cli-error.ts';
import { selectProvider } from './select-provider.ts';
import { type CliIo, line, painter, wantsColor } from './terminal/io.ts';
import { StdinLines } from './terminal/line-input.ts';
import { type AnswerSource, promptApprover } from './terminal/prompt-approver.ts';

/** The flags of the commands that run agents: `run`, `resume` and `job`. */
export type AgentFlags = {
  cwd?: string;
  provider?: string;
  model?: string;
  mode?: PermissionMode;
  yes?: boolean;
  json?: boolean;
  /** `--context-window`: the model's window in tokens, for a model its adapter does not know. */
  contextWindow?: number;
  /** `--allow <rule>` / `--deny <rule>`, repeatable; added to the settings files' rules. */
  allow?: string[];
  deny?: string[];
  /** `--states`: print the machines' state changes between the transcript's lines. */
  states?: boolean;
  /** `--max-steps`: model requests in one turn. */
  maxSteps?: number;
  /** `--session-dir`: where session logs go (default: the user's state folder, per workspace). */
  sessionDir?: string;
  /** `--workspace-mcp`: trust the MCP servers the workspace's settings file names. */
  workspaceMcp?: boolean;
  /** `--workspace-hooks`: run the command hooks the workspace's settings file names. */
  workspaceHooks?: boolean;
  /** `--workspace-permissions`: take the workspace settings file's allow rules and a looser `defaultMode`. */
  workspacePermissions?: boolean;
};

/** The permission mode and rules of one invocation: flags over the settings files. */
export type CliPermissions = {
  mode: PermissionMode;
  /** Rules from the settings files and the flags, and whether the settings switched bypass mode off. */
  rules: CliRules;
  /** The MCP servers of the settings files this invocation trusts (see `loadSettings`). */
  mcpServers: McpServers;
  /** The command hooks of the settings files this invocation trusts, as the system's `hooks` option. */
  hooks: Hooks;
};

/** The rules of one invocation (the flags' added to the settings files'). */
export type CliRules = { allow: string[]; ask: string[]; deny: string[]; bypassDisabled?: boolean };

/**
 * The permissions from the flags and the settings files (the user's, then the workspace's): rules from all
 * of them; the mode from `--mode`, `--yes`, the mode a resumed session recorded, the settings'
 * `defaultMode`, the default.
 */
export async function permissionsOf(
  io: CliIo,
  flags: AgentFlags,
  cwd: string,
  recorded?: PermissionMode,
): Promise<CliPermissions> {
  const settings = await cliSettings(io, cwd, flags);
  for (const warning of settings.warnings) line(io.stderr, `agentchart: warning: ${warning}`);
  const held = heldPermissionsLine(settings, cwd);
  if (held !== undefined) line(io.stderr, `agentchart: ${held}`);
  if (settings.untrustedHooks.length > 0)
    line(
      io.stderr,
      `agentchart: not running the hooks the workspace's settings name (${settings.untrustedHooks.join(', ')}); pass --workspace-hooks to trust them`,
    );
  if (settings.untrustedMcpServers.length > 0)
    line(
      io.stderr,
      `agentchart: not starting the MCP servers the workspace's settings name (${settings.untrustedMcpServers.join(', ')}); pass --workspace-mcp to trust them`,
    );
  for (const rule of [...(flags.allow ?? []), ...(flags.deny ?? [])]) {
    const problem = ruleProblem(rule);
    if (problem !== undefined)
      throw new CliError(`--allow/--deny ${JSON.stringify(rule)} is not a rule: ${problem}`, { exitCode: 2 });
  }
  const mode = permissionModeOf(flags, recorded ?? settings.permissions.defaultMode);
  const bypassDisabled = settings.permissions.disableBypassPermissionsMode === true;
  if (bypassDisabled && mode === 'bypass')
    throw new CliError(bypassRefused(settings).message, { exitCode: 2, code: 'config' });
  return {
    mode,
    rules: {
      allow: [...settings.permissions.allow, ...(flags.allow ?? [])],
      ask: [...settings.permissions.ask],
      deny: [...settings.permissions.deny, ...(flags.deny ?? [])],
      ...(bypassDisabled ? { bypassDisabled } : {}),
    },
    mcpServers: settings.mcpServers,
    hooks: commandHooksFrom(settings.hooks),
  };
}

/** What the untrusted workspace files asked for that would loosen permissions, in one sentence (none: undefined). */
function heldPermissionsLine(settings: LoadedSettings, cwd: string): string | undefined {
  const held = settings.untrustedPermissions;
  const asked = [
    ...(held.allow.length > 0 ? [`permissions.allow ${JSON.stringify(held.allow)}`] : []),
    ...(held.defaultMode !== undefined ? [`defaultMode ${JSON.stringify(held.defaultMode)}`] : []),
  ];
  if (asked.length === 0) return undefined;
  const files = new Set(
    settings.sources
      .filter((source) => source.ignored?.includes('--workspace-permissions'))
      .map((source) => relative(cwd, source.file)),
  );
  return (
    `the workspace's ${[...files].join(' and ')} ${files.size > 1 ? 'ask' : 'asks'} for ${asked.join(' and ')}: not in force ` +
    "(pass --workspace-permissions to trust this workspace's settings)"
  );
}

/**
 * The settings files of the workspace, merged, with their rules and matchers checked against the CLI's tools
 * (and `--allow`/`--deny`'s): a bad file or a rule naming no tool is an error with exit 2; what is only a
 * warning is in `warnings`.
 */
export async function cliSettings(io: CliIo, cwd: string, flags: AgentFlags): Promise<LoadedSettings> {
  try {
    const settings = await loadSettings(cwd, io.env, {
      trustWorkspaceMcp: flags.workspaceMcp === true,
      trustWorkspaceHooks: flags.workspaceHooks === true,
      trustWorkspacePermissions: flags.workspacePermissions === true,
    });
    const flagRules = (['allow', 'deny'] as const).flatMap((list) =>
      (flags[list] ?? [])
        .filter((rule) => ruleProblem(rule) === undefined)
        .map((rule) => ({ where: `--${list}`, rule, list })),
    );
    // The CLI's tools are the built-in ones (the coding tools, task, skill, exit_plan_mode) and MCP servers'.
    const servers = [...Object.keys(settings.mcpServers), ...settings.untrustedMcpServers];
    const { errors, warnings } = checkToolNames([...settingsEntries(settings), ...flagRules], {
      hostTools: [],
      mcpServers: servers,
    });
    if (errors.length > 0) throw new ConfigError(errors.join('\n'));
    settings.warnings.push(...warnings);
    return settings;
  } catch (error) {
    if (!ConfigError.isInstance(error)) throw error;
    throw new CliError(error.message, { exitCode: 2, code: 'config', cause: error });
  }
}

/** The workspace directory (`--cwd`, or the one a session recorded), checked to exist. */
export async function workspaceOf(io: CliIo, cwd: string | undefined, label = '--cwd'): Promise<string> {
  const dir = resolve(io.cwd, cwd ?? '.');
  const info = await stat(dir).catch((error: unknown) => {
    throw new CliError(`the workspace ${dir} (${label}) does not exist`, { exitCode: 2, cause: error });
  });
  if (!info.isDirectory())
    throw new CliError(`the workspace ${dir} (${label}) is not a directory`, { exitCode: 2 });
  return dir;
}

/** The user's home folder, whose instruction files the CLI reads: `HOME` as the CLI was given it wins. */
export function userHome(env: Record<string, string | undefined>): string {
  return env.HOME || homedir();
}

/** The model from flags and environment, or a `CliError` (exit 2) carrying the guidance text. */
export async function providerFor(
  io: CliIo,
  flags: AgentFlags,
  fallbackModel?: string,
): Promise<{ provider: Provider; description: string }> {
  const choice = await selectProvider({
    provider: flags.provider,
    model: flags.model ?? fallbackModel,
    contextWindow: flags.contextWindow ?? windowFromEnvironment(io.env),
    env: io.env,
  });
  if ('error' in choice) throw new CliError(choice.error, { exitCode: 2, code: 'config' });
  return choice;
}

/** `AGENTCHART_CONTEXT_WINDOW`, when `--context-window` is not given; a bad value is a `CliError`. */
function windowFromEnvironment(env: Record<string, string | undefined>): number | undefined {
  const text = env.AGENTCHART_CONTEXT_WINDOW?.trim();
  if (!text) return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value <= 0)
    throw new CliError(`AGENTCHART_CONTEXT_WINDOW must be a positive whole number of tokens, got "${text}"`, {
      exitCode: 2,
    });
  return value;
}

/**
 * The permission mode: `--mode`, else `--yes` (accept-edits), else the mode a resumed session recorded,
 * else the runtime's default.
 */
export function permissionModeOf(flags: AgentFlags, recorded?: PermissionMode): PermissionMode {
  return flags.mode ?? (flags.yes ? 'accept-edits' : (recorded ?? defaultPermissionMode));
}

export type CliSystemOptions = {
  io: CliIo;
  provider: Provider;
  store: SessionStore;
  cwd: string;
  mode: PermissionMode;
  /** Allow, ask and deny rules (from flags and settings). */
  rules?: CliRules;
  maxSteps?: number;
  /** MCP servers from the settings files; their tools join the coding tools. */
  mcpServers?: McpServers;
  /** Command hooks from the settings files. */
  hooks?: Hooks;
  /** Where answers come from (the chat's terminal); default: stdin's lines. */
  answers?: AnswerSource;
  /**
   * Whether calls that need approval are asked about on the terminal (when stdin is one). `job` says no:
   * its agents run side by side, so nobody is asked and such calls are denied (headless).
   */
  prompt: boolean;
};

/** What every CLI agent system has: the chosen model, the coding tools and `task`, store, workspace, mode. */
export function cliSystemOptions(
  options: Pick<CliSystemOptions, 'provider' | 'store' | 'cwd' | 'mode' | 'mcpServers' | 'hooks'>,
): AgentSystemOptions {
  const { mcpServers, hooks } = options;
  return {
    model: options.provider,
    tools: [...codingTools(), taskTool()],
    store: options.store,
    cwd: options.cwd,
    permissionMode: options.mode,
    ...(mcpServers && Object.keys(mcpServers).length > 0 ? { mcpServers } : {}),
    ...(hooks && Object.keys(hooks).length > 0 ? { hooks } : {}),
  };
}

/**
 * An agent system for the CLI: the coding tools and `task`, the chosen mode, and an approver that asks on
 * the terminal when stdin is one. Without a terminal a call that would ask is denied; that is said once.
 * Contract: call `closePrompt()` when done, so the terminal's input is released.
 */
export function cliAgentSystem(options: CliSystemOptions): {
  system: AgentSystem;
  closePrompt: () => void;
  /** Whether someone at the terminal answers approvals (otherwise they are denied). */
  canAsk: boolean;
} {
  const { io, mode } = options;
  // In plan mode the person is asked about the plan (exit_plan_mode), so plan mode prompts too. The chat
  // (its own `answers`) always can: `/mode` may leave bypass for a mode that asks, on the same system.
  const interactive =
    options.prompt && io.stdin.isTTY === true && (mode !== 'bypass' || options.answers !== undefined);
  const lines = interactive && !options.answers ? new StdinLines(io.stdin) : undefined;
  const answers = options.answers ?? lines;
  const terminal = io.stderr as { columns?: number; rows?: number };
  const approve =
    interactive && answers
      ? promptApprover({
          input: answers,
          output: options.answers ? io.stdout : io.stderr,
          cwd: options.cwd,
          width: terminal.columns || 100,
          ...(terminal.rows ? { pageRows: Math.max(5, terminal.rows - 4) } : {}),
          paint: painter(wantsColor(io.stderr, io.env)),
        })
      : undefined;
  if (options.prompt && !interactive && (mode === 'default' || mode === 'accept-edits')) {
    const asks = mode === 'default' ? 'edits and commands' : 'commands';
    line(
      io.stderr,
      `agentchart: stdin is not a terminal, so nobody can approve tool calls: ${asks} will be denied ` +
        '(use --yes for accept-edits or --mode bypass to allow them).',
    );
  }
  const system = createAgentSystem({
    ...cliSystemOptions(options),
    ...(options.rules ? { permissions: options.rules } : {}),
    ...(options.maxSteps !== undefined ? { limits: { maxSteps: options.maxSteps } } : {}),
    ...(approve ? { approve } : {}),
    // The CLI always offers skills: the workspace's and the user's (HOME as the CLI was given it).
    skills: { folders: skillFolders(options.cwd, io.env) },
    // Instruction files as Claude Code finds them, the user's own included (README, "Project instructions").
    projectInstructions: { home: userHome(io.env) },
    environment: true,
  });
  return { system, closePrompt: () => lines?.close(), canAsk: approve !== undefined };
}
