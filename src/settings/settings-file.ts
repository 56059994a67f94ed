// The settings file: `.agentchart/settings.json` in the workspace and `~/.agentchart/settings.json` for the
// user. Parsed here, once, where it enters: `permissions`, `mcpServers` and `hooks`; a new part is one more
// key in `settingsSchema` and one more line in `mergeSettings` (and in `trustOf`: may a checked-out
// repository set it without the person trusting it?). The CLI always reads them; the
// library only when a host asks (`createAgentSystem({ settings: 'workspace' })`).
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { z } from 'zod/v4';
import { configFileLimit, readRegularTextSync, type TextRead } from '../core/read-limited.ts';
import { ConfigError } from '../errors/config-error.ts';
import { type HooksSettings, hooksSettingsSchema, mergeHooksSettings } from '../hooks/settings-schema.ts';
import { type McpServers, mcpServersFileSchema } from '../mcp/server-config.ts';
import { type ConfigVariables, expandServerVariables } from '../mcp/server-variables.ts';
import {
  defaultPermissionMode,
  type PermissionMode,
  permissionModes,
  stricterMode,
} from '../permissions/modes.ts';
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

/**
 * Which parts of the workspace's file count in full: each only when the person said so. Untrusted, its MCP
 * servers and hooks (which could run any command) are left out, and its permissions may only make things
 * stricter: its deny rules and a stricter `defaultMode` apply, its allow rules and a looser mode do not.
 */
export type SettingsTrust = {
  trustWorkspaceMcp?: boolean;
  trustWorkspaceHooks?: boolean;
  trustWorkspacePermissions?: boolean;
};

/** What one file's values may do, by part (a file of the user's or the host's may do everything). */
type FileTrust = { servers: boolean; hooks: boolean; permissions: boolean };

function trustOf(file: SettingsFile, options: SettingsTrust): FileTrust {
  const own = file.scope !== 'workspace';
  return {
    servers: own || options.trustWorkspaceMcp === true,
    hooks: own || options.trustWorkspaceHooks === true,
    permissions: own || options.trustWorkspacePermissions === true,
  };
}

/** The permissions an untrusted workspace file asked for that would loosen them, so they were not taken. */
export type HeldPermissions = { allow: string[]; defaultMode?: PermissionMode };

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
  permissions: { allow: string[]; deny: string[]; defaultMode?: PermissionMode };
  /**
   * What the workspace file asked for that would loosen permissions and is not in force because it was not
   * trusted (`--workspace-permissions`): its allow rules, and a `defaultMode` looser than the one before it.
   */
  untrustedPermissions: HeldPermissions;
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
 * The files a host's `settings` option names: `'workspace'` is the user's file and the workspace's (never
 * trusted: its MCP servers and hooks are left out and its permissions may only be stricter, since a
 * checked-out repository could name anything there); a path is that one file, read relative to the
 * workspace and trusted wholly, since the host named it.
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
 * the user's file cannot be undone by an allow in a checked-out repository. Unless `options` trusts it, the
 * workspace file only tightens: its allow rules and a looser `defaultMode` are held back
 * (`untrustedPermissions`), as its servers and hooks are.
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
 * a missing file the host named, an unreadable file, one that is not a regular file (a FIFO, a device, a
 * folder) or is over 1 MiB, bad JSON or a value the schema refuses is a `ConfigError` naming the file, the
 * field and what is wrong. The `${VAR}` references of the servers that start are expanded from `variables`
 * (none given: every reference needs its default); `sources` keep the servers as written.
 */
export function readSettings(
  files: readonly SettingsFile[],
  options: SettingsTrust & { variables?: ConfigVariables } = {},
): LoadedSettings {
  const loaded: LoadedSettings = {
    permissions: { allow: [], deny: [] },
    untrustedPermissions: { allow: [] },
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
    const modeBefore = loaded.permissions.defaultMode ?? defaultPermissionMode;
    const trust = trustOf(file, options);
    const parts = { ...trust, modeBefore, held: heldPermissions(settings, trust, modeBefore) };
    noteSources(loaded.sources, settings, file, parts);
    // Only servers that start are expanded: an untrusted workspace's need none of their variables set.
    const expanded = trust.servers ? expandServers(settings, file, options.variables ?? {}) : settings;
    mergeSettings(loaded, expanded, parts);
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

/**
 * What of a file's permissions is held back: nothing when it is trusted; else its allow rules, and its
 * `defaultMode` when that is looser than the mode in force before it (`default` when none is set).
 */
function heldPermissions(settings: Settings, trust: FileTrust, modeBefore: PermissionMode): HeldPermissions {
  const { allow = [], defaultMode } = settings.permissions ?? {};
  if (trust.permissions) return { allow: [] };
  const mode = defaultMode as PermissionMode | undefined;
  const looser = mode !== undefined && stricterMode(mode, modeBefore) !== mode;
  return { allow: [...allow], ...(looser ? { defaultMode: mode } : {}) };
}

/** One file's trust, the mode in force before it, and what of its permissions is held back. */
type MergeTrust = FileTrust & { modeBefore: PermissionMode; held: HeldPermissions };

function mergeSettings(into: LoadedSettings, settings: Settings, trust: MergeTrust): void {
  if (settings.mcpServers) {
    if (trust.servers) Object.assign(into.mcpServers, settings.mcpServers);
    else into.untrustedMcpServers.push(...Object.keys(settings.mcpServers));
  }
  // Like MCP servers, a checked-out repository's hooks could run any command: only when trusted.
  if (trust.hooks) mergeHooksSettings(into.hooks, settings.hooks);
  else into.untrustedHooks.push(...Object.keys(settings.hooks ?? {}));
  const { permissions } = settings;
  if (!permissions) return;
  // Deny rules only make things stricter, so every file's apply.
  into.permissions.deny.push(...(permissions.deny ?? []));
  if (trust.permissions) into.permissions.allow.push(...(permissions.allow ?? []));
  else into.untrustedPermissions.allow.push(...trust.held.allow);
  if (trust.held.defaultMode !== undefined) into.untrustedPermissions.defaultMode = trust.held.defaultMode;
  else if (permissions.defaultMode !== undefined)
    into.permissions.defaultMode = permissions.defaultMode as PermissionMode;
}

/** Records what one file gave; a value it sets again overrides (and marks) the earlier file's. */
function noteSources(
  sources: SettingSource[],
  settings: Settings,
  file: SettingsFile,
  trust: MergeTrust,
): void {
  const at = { file: file.path, scope: file.scope };
  const single = (key: string, value: unknown, ignored?: string) => {
    for (const earlier of sources)
      if (earlier.key === key && earlier.ignored === undefined)
        earlier.ignored = `overridden by ${file.path}`;
    sources.push({ key, value, ...at, ...(ignored ? { ignored } : {}) });
  };
  const untrusted = 'workspace permissions are not trusted (--workspace-permissions)';
  for (const rule of settings.permissions?.allow ?? [])
    sources.push({
      key: 'permissions.allow',
      value: rule,
      ...at,
      ...(trust.permissions ? {} : { ignored: untrusted }),
    });
  for (const rule of settings.permissions?.deny ?? [])
    sources.push({ key: 'permissions.deny', value: rule, ...at });
  const mode = settings.permissions?.defaultMode;
  if (trust.held.defaultMode !== undefined)
    sources.push({
      key: 'permissions.defaultMode',
      value: mode,
      ...at,
      ignored: `looser than ${JSON.stringify(trust.modeBefore)}; ${untrusted}`,
    });
  else if (mode !== undefined) single('permissions.defaultMode', mode);
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
  let read: TextRead;
  try {
    // Synchronous (systems are created synchronously), so a FIFO here would stop the whole process: it
    // is refused without a blocking open, like a device or a file over 1 MiB.
    read = readRegularTextSync(file.path, configFileLimit);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' && file.scope !== 'file') return undefined;
    throw new ConfigError(`cannot read the settings file ${file.path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  if (!('text' in read)) throw new ConfigError(`the settings file ${file.path} ${read.refused}`);
  let json: unknown;
  try {
    json = JSON.parse(read.text);
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
