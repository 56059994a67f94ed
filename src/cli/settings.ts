// The settings file: `.agentchart/settings.json` in the workspace and `~/.agentchart/settings.json` for the
// user. Parsed here, once, where it enters: `permissions` and `mcpServers` so far; a new part (hooks, …) is
// one more key in `settingsSchema` and one more line in `mergeSettings`.
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod/v4';
import { type HooksSettings, hooksSettingsSchema, mergeHooksSettings } from '../hooks/settings-schema.ts';
import { type McpServers, mcpServersSchema } from '../mcp/server-config.ts';
import { permissionModes } from '../permissions/modes.ts';
import { ruleProblem } from '../permissions/rules.ts';
import { CliError } from './io.ts';

const rule = z.string().superRefine((text, context) => {
  const problem = ruleProblem(text);
  if (problem !== undefined)
    context.addIssue({ code: 'custom', message: `${JSON.stringify(text)}: ${problem}` });
});

const permissionsSchema = z.strictObject({
  /** Rules whose calls run without asking: `read_file`, `bash(npm test:*)`, `write_file(src/**)`. */
  allow: z.array(rule).optional(),
  /** Rules whose calls are always denied; a deny rule wins over every allow. */
  deny: z.array(rule).optional(),
  /** The permission mode when no `--mode` or `--yes` is given. */
  defaultMode: z.enum(permissionModes as [string, ...string[]]).optional(),
});

/** What one settings file may hold. Unknown keys are refused, so a misspelt key is not silently ignored. */
export const settingsSchema = z.strictObject({
  $schema: z.string().optional(),
  permissions: permissionsSchema.optional(),
  /** MCP servers by name, in `.mcp.json`'s shape (see README "MCP servers"). */
  mcpServers: mcpServersSchema.optional(),
  /** Command hooks by Claude Code event name (see README "Hooks"). */
  hooks: hooksSettingsSchema.optional(),
});

export type Settings = z.infer<typeof settingsSchema>;

/** The settings of one invocation, user file first, then the workspace's (which wins where they differ). */
export type LoadedSettings = {
  permissions: { allow: string[]; deny: string[]; defaultMode?: (typeof permissionModes)[number] };
  /**
   * MCP servers: the user's file's always; the workspace file's only when the person said to trust them
   * (`--workspace-mcp`), since a checked-out repository could name any command there.
   */
  mcpServers: McpServers;
  /** Servers named by the workspace file that were not started because it was not trusted. */
  untrustedMcpServers: string[];
  /** Command hooks: the user's file's always, the workspace file's only when trusted (`--workspace-hooks`). */
  hooks: HooksSettings;
  /** Hook events the workspace file names that were not run because it was not trusted. */
  untrustedHooks: string[];
  /** The files that were read, in order. */
  files: string[];
};

/** The settings files of a workspace, the user's first. `HOME` from the environment wins over the OS's. */
export function settingsFiles(cwd: string, env: Record<string, string | undefined>): string[] {
  const home = env.HOME || homedir();
  const user = join(home, '.agentchart', 'settings.json');
  const workspace = join(cwd, '.agentchart', 'settings.json');
  return user === workspace ? [user] : [user, workspace];
}

/**
 * Reads and merges the settings files of a workspace. A missing file is no settings; an unreadable file,
 * bad JSON or a value the schema refuses is a `CliError` (exit 2) naming the file and the key.
 */
export async function loadSettings(
  cwd: string,
  env: Record<string, string | undefined>,
  options: { trustWorkspaceMcp?: boolean; trustWorkspaceHooks?: boolean } = {},
): Promise<LoadedSettings> {
  const loaded: LoadedSettings = {
    permissions: { allow: [], deny: [] },
    mcpServers: {},
    untrustedMcpServers: [],
    hooks: {},
    untrustedHooks: [],
    files: [],
  };
  const files = settingsFiles(cwd, env);
  for (const [index, file] of files.entries()) {
    const settings = await readSettingsFile(file);
    if (settings === undefined) continue;
    loaded.files.push(file);
    const isWorkspaceFile = index > 0;
    mergeSettings(loaded, settings, !isWorkspaceFile || options.trustWorkspaceMcp === true);
    // Like MCP servers, a checked-out repository's hooks could run any command: only when trusted.
    if (!isWorkspaceFile || options.trustWorkspaceHooks === true)
      mergeHooksSettings(loaded.hooks, settings.hooks);
    else loaded.untrustedHooks.push(...Object.keys(settings.hooks ?? {}));
  }
  return loaded;
}

function mergeSettings(into: LoadedSettings, settings: Settings, trustServers: boolean): void {
  if (settings.mcpServers) {
    if (trustServers) Object.assign(into.mcpServers, settings.mcpServers);
    else into.untrustedMcpServers.push(...Object.keys(settings.mcpServers));
  }
  const { permissions } = settings;
  if (!permissions) return;
  into.permissions.allow.push(...(permissions.allow ?? []));
  into.permissions.deny.push(...(permissions.deny ?? []));
  if (permissions.defaultMode !== undefined)
    into.permissions.defaultMode = permissions.defaultMode as LoadedSettings['permissions']['defaultMode'];
}

async function readSettingsFile(file: string): Promise<Settings | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new CliError(`cannot read the settings file ${file}: ${(error as Error).message}`, {
      exitCode: 2,
      cause: error,
    });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new CliError(`the settings file ${file} is not valid JSON: ${(error as Error).message}`, {
      exitCode: 2,
      cause: error,
    });
  }
  const parsed = settingsSchema.safeParse(json);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const where = issue.path.length > 0 ? issue.path.join('.') : '(the top level)';
  throw new CliError(`the settings file ${file} is wrong at ${where}: ${issue.message}`, { exitCode: 2 });
}
