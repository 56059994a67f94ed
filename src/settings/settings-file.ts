// The settings file: `.agentchart/settings.json` in the workspace and `~/.agentchart/settings.json` for the
// user. Parsed here, once, where it enters: `permissions`, `mcpServers` and `hooks`; a new part (hooks, …) is
// one more key in `settingsSchema` and one more line in `mergeSettings`. The CLI always reads them; the
// library only when a host asks (`createAgentSystem({ settings: 'workspace' })`).
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { z } from 'zod/v4';
import { ConfigError } from '../errors/config-error.ts';
import { type HooksSettings, hooksSettingsSchema, mergeHooksSettings } from '../hooks/settings-schema.ts';
import { type McpServers, mcpServersFileSchema } from '../mcp/server-config.ts';
import { type ConfigVariables, expandServerVariables } from '../mcp/server-variables.ts';
import { permissionModes } from '../permissions/modes.ts';
import { ruleProblem } from '../permissions/rules.ts';

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
  mcpServers: mcpServersFileSchema.optional(),
  /** Command hooks by Claude Code event name (see README "Hooks"). */
  hooks: hooksSettingsSchema.optional(),
});

export type Settings = z.infer<typeof settingsSchema>;

/** Which parts of the workspace's file may start commands: each only when the person said so. */
export type SettingsTrust = { trustWorkspaceMcp?: boolean; trustWorkspaceHooks?: boolean };

/** Where a settings file sits: the user's config folder, the workspace, or a file the host named. */
export type SettingsScope = 'user' | 'workspace' | 'file';

export type SettingsFile = { path: string; scope: SettingsScope };

/** One value a settings file gave, where it came from, and whether it is in force (see `agentchart config`). */
export type SettingSource = {
  /** `permissions.allow`, `permissions.deny`, `permissions.defaultMode`, `mcpServers.<name>`, … */
  key: string;
  value: unknown;
  file: string;
  scope: SettingsScope;
  /** Why the value is not in force: a later file overrode it, or the workspace's servers are not trusted. */
  ignored?: string;
};

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
  /** Every value read, in the order read, with its file (what `agentchart config` prints). */
  sources: SettingSource[];
};

/** The user's config folder (`~/.agentchart`). `HOME` from the environment wins over the OS's idea of it. */
export function userConfigFolder(env: Record<string, string | undefined>): string {
  return join(env.HOME || homedir(), '.agentchart');
}

/** The settings files of a workspace, the user's first. */
export function settingsFiles(cwd: string, env: Record<string, string | undefined>): SettingsFile[] {
  const user = join(userConfigFolder(env), 'settings.json');
  const workspace = join(cwd, '.agentchart', 'settings.json');
  if (user === workspace) return [{ path: user, scope: 'user' }];
  return [
    { path: user, scope: 'user' },
    { path: workspace, scope: 'workspace' },
  ];
}

/**
 * The files a host's `settings` option names: `'workspace'` is the user's file and the workspace's (whose
 * MCP servers are not started: a checked-out repository could name any command); a path is that one file,
 * read relative to the workspace and trusted wholly, since the host named it.
 */
export function settingsFilesFor(
  option: 'workspace' | string,
  cwd: string,
  env: Record<string, string | undefined>,
): SettingsFile[] {
  if (option === 'workspace') return settingsFiles(cwd, env);
  return [{ path: resolve(cwd, option), scope: 'file' }];
}

/**
 * Reads and merges the settings files of a workspace (see `readSettings`); the CLI's entry.
 * Precedence: the workspace file wins where both set one value (`defaultMode`, a server of the same
 * name); `allow` and `deny` rules of both apply, and a deny rule wins over every allow rule, so a deny in
 * the user's file cannot be undone by an allow in a checked-out repository.
 */
export async function loadSettings(
  cwd: string,
  env: Record<string, string | undefined>,
  options: SettingsTrust = {},
): Promise<LoadedSettings> {
  return readSettings(settingsFiles(cwd, env), { ...options, variables: env });
}

/**
 * Reads and merges settings files, later files winning. A missing user or workspace file is no settings;
 * a missing file the host named, an unreadable file, bad JSON or a value the schema refuses is a
 * `ConfigError` naming the file, the field and what is wrong. The `${VAR}` references of the servers that
 * start are expanded from `variables` (none given: every reference needs its default); `sources` keep the
 * servers as written.
 */
export function readSettings(
  files: readonly SettingsFile[],
  options: SettingsTrust & { variables?: ConfigVariables } = {},
): LoadedSettings {
  const loaded: LoadedSettings = {
    permissions: { allow: [], deny: [] },
    mcpServers: {},
    untrustedMcpServers: [],
    hooks: {},
    untrustedHooks: [],
    files: [],
    sources: [],
  };
  for (const file of files) {
    const settings = readSettingsFile(file);
    if (settings === undefined) continue;
    loaded.files.push(file.path);
    const trustServers = file.scope !== 'workspace' || options.trustWorkspaceMcp === true;
    // Only servers that start are expanded: an untrusted workspace's need none of their variables set.
    const servers = trustServers ? expandServers(settings, file, options.variables ?? {}) : settings;
    mergeSettings(loaded, servers, trustServers);
    const trustHooks = file.scope !== 'workspace' || options.trustWorkspaceHooks === true;
    noteSources(loaded.sources, settings, file, { servers: trustServers, hooks: trustHooks });
    // Like MCP servers, a checked-out repository's hooks could run any command: only when trusted.
    if (trustHooks) mergeHooksSettings(loaded.hooks, settings.hooks);
    else loaded.untrustedHooks.push(...Object.keys(settings.hooks ?? {}));
  }
  return loaded;
}

/** The file's settings with its servers' `${VAR}` references expanded (see server-variables.ts). */
function expandServers(settings: Settings, file: SettingsFile, variables: ConfigVariables): Settings {
  if (!settings.mcpServers) return settings;
  return {
    ...settings,
    mcpServers: expandServerVariables(settings.mcpServers, { file: file.path, variables }),
  };
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

/** Records what one file gave; a value it sets again overrides (and marks) the earlier file's. */
function noteSources(
  sources: SettingSource[],
  settings: Settings,
  file: SettingsFile,
  trust: { servers: boolean; hooks: boolean },
): void {
  const at = { file: file.path, scope: file.scope };
  const single = (key: string, value: unknown, ignored?: string) => {
    for (const earlier of sources)
      if (earlier.key === key && earlier.ignored === undefined)
        earlier.ignored = `overridden by ${file.path}`;
    sources.push({ key, value, ...at, ...(ignored ? { ignored } : {}) });
  };
  for (const rule of settings.permissions?.allow ?? [])
    sources.push({ key: 'permissions.allow', value: rule, ...at });
  for (const rule of settings.permissions?.deny ?? [])
    sources.push({ key: 'permissions.deny', value: rule, ...at });
  if (settings.permissions?.defaultMode !== undefined)
    single('permissions.defaultMode', settings.permissions.defaultMode);
  for (const [name, server] of Object.entries(settings.mcpServers ?? {})) {
    if (trust.servers) single(`mcpServers.${name}`, server);
    else
      sources.push({
        key: `mcpServers.${name}`,
        value: server,
        ...at,
        ignored: 'workspace servers are not trusted (--workspace-mcp)',
      });
  }
  // Hooks of both files run (a list per event), so none overrides another; untrusted ones do not run.
  for (const [event, groups] of Object.entries(settings.hooks ?? {}))
    for (const group of groups)
      sources.push({
        key: `hooks.${event}`,
        value: group,
        ...at,
        ...(trust.hooks ? {} : { ignored: 'workspace hooks are not trusted (--workspace-hooks)' }),
      });
}

function readSettingsFile(file: SettingsFile): Settings | undefined {
  let text: string;
  try {
    text = readFileSync(file.path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' && file.scope !== 'file') return undefined;
    throw new ConfigError(`cannot read the settings file ${file.path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`the settings file ${file.path} is not valid JSON: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const parsed = settingsSchema.safeParse(json);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const where = issue.path.length > 0 ? issue.path.join('.') : '(the top level)';
  throw new ConfigError(`the settings file ${file.path} is wrong at ${where}: ${issue.message}`);
}
