// The flags of the commands that run agents, and what they name: the workspace, the model, the mode.
import { stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { defaultPermissionMode, type PermissionMode } from '../permissions/modes.ts';
import type { Provider } from '../providers/types.ts';
import { CliError } from './cli-error.ts';
import { selectProvider } from './select-provider.ts';
import type { CliIo } from './terminal/io.ts';

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
  /** `--background-agents`: offer the model `backgroundAgentTools()` (see `CliSystemOptions`). */
  backgroundAgents?: boolean;
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
