// The permissions of one CLI invocation: the settings files (the user's, then the workspace's, as far as
// the flags trust it) checked against the CLI's tools, with `--mode`, `--yes`, `--allow` and `--deny` over them.
import { relative } from 'node:path';
import { ConfigError } from '../errors/config-error.ts';
import type { Hooks } from '../hooks/hook-types.ts';
import { commandHooksFrom } from '../hooks/settings-schema.ts';
import type { McpServers } from '../mcp/server-config.ts';
import type { PermissionMode } from '../permissions/modes.ts';
import { ruleProblem } from '../permissions/rules.ts';
import { bypassRefused } from '../runtime/settings-checks.ts';
import { loadSettings } from '../settings/settings-file.ts';
import type { LoadedSettings } from '../settings/settings-types.ts';
import { checkToolNames, settingsEntries } from '../settings/tool-name-check.ts';
import { type AgentFlags, permissionModeOf } from './agent-flags.ts';
import { CliError } from './cli-error.ts';
import { type CliIo, line } from './terminal/io.ts';

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
