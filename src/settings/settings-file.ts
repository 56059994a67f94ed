// The settings files: `.agentchart/settings.json` in the workspace and `~/.agentchart/settings.json` for the
// user, and Claude Code's `.claude/settings.json` and `.claude/settings.local.json` in the workspace (trusted
// as the workspace's own file is). Read here, once, where they enter; what one file may hold is
// settings-schema.ts, how files merge settings-merge.ts. The CLI always reads them; the library only when a
// host asks (`createAgentSystem({ settings: 'workspace' })`).
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { configFileLimit, readRegularTextSync, type TextRead } from '../core/read-limited.ts';
import { ConfigError } from '../errors/config-error.ts';
import { type ConfigVariables, expandServerVariables } from '../mcp/server-variables.ts';
import { defaultPermissionMode } from '../permissions/modes.ts';
import { applyServerLists, type ServerEntry } from './mcp-server-filter.ts';
import { applyDisableAllHooks, mergeSettings, mergeTrust, noteSources, trustOf } from './settings-merge.ts';
import {
  type NotUsedValue,
  notUsedParsed,
  type Settings,
  settingsSchema,
  takeNotUsed,
  unknownKeyHint,
} from './settings-schema.ts';
import type { LoadedSettings, SettingsFile, SettingsTrust } from './settings-types.ts';

/** The user's config folder (`~/.agentchart`). `HOME` from the environment wins over the OS's idea of it. */
export function userConfigFolder(env: Record<string, string | undefined>): string {
  return join(env.HOME || homedir(), '.agentchart');
}

/**
 * The settings files of a workspace, in the order they are merged (later wins): the user's, then the
 * workspace's `.claude/settings.json`, `.claude/settings.local.json` (Claude Code's shared and local project
 * files, local winning as there) and agentchart's own `.agentchart/settings.json`.
 */
export function settingsFiles(cwd: string, env: Record<string, string | undefined>): SettingsFile[] {
  const user = join(userConfigFolder(env), 'settings.json');
  const workspace = [
    join(cwd, '.claude', 'settings.json'),
    join(cwd, '.claude', 'settings.local.json'),
    join(cwd, '.agentchart', 'settings.json'),
  ];
  return [
    { path: user, scope: 'user' as const },
    ...workspace.filter((path) => path !== user).map((path) => ({ path, scope: 'workspace' as const })),
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
    permissions: { allow: [], ask: [], deny: [] },
    untrustedPermissions: { allow: [] },
    mcpServers: {},
    untrustedMcpServers: [],
    hooks: {},
    untrustedHooks: [],
    files: [],
    sources: [],
    notUsed: [],
    warnings: [],
  };
  // Every file's deny entries; the allowlist of the files trusted with servers, else of the others (an
  // untrusted file's allowlist may narrow, never widen, what a trusted one allows).
  const lists = {
    deny: [] as ServerEntry[],
    trusted: undefined as ServerEntry[] | undefined,
    other: undefined as ServerEntry[] | undefined,
  };
  for (const file of files) {
    const read = readSettingsFile(file);
    if (read === undefined) continue;
    const { settings, notUsed } = read;
    loaded.files.push(file.path);
    const trust = trustOf(file, options);
    lists.deny.push(...(settings.deniedMcpServers ?? []));
    if (settings.allowedMcpServers !== undefined) {
      const into = trust.servers ? 'trusted' : 'other';
      lists[into] = [...(lists[into] ?? []), ...settings.allowedMcpServers];
    }
    const parts = mergeTrust(settings, trust, loaded.permissions.defaultMode ?? defaultPermissionMode);
    noteSources(loaded.sources, settings, file, parts);
    for (const value of notUsed) loaded.notUsed.push({ ...value, file: file.path, scope: file.scope });
    // Only servers that start are expanded: an untrusted workspace's need none of their variables set.
    const expanded = trust.servers ? expandServers(settings, file, options.variables ?? {}) : settings;
    mergeSettings(loaded, expanded, parts);
  }
  applyDisableAllHooks(loaded);
  const allow = lists.trusted ?? lists.other;
  applyServerLists(loaded, { deny: lists.deny, ...(allow ? { allow } : {}) });
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

/** One file's settings, and Claude Code's values in it that agentchart does not use. */
function readSettingsFile(file: SettingsFile): { settings: Settings; notUsed: NotUsedValue[] } | undefined {
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
  const { rest, notUsed } = takeNotUsed(json);
  const parsed = settingsSchema.safeParse(rest);
  if (parsed.success) return { settings: parsed.data, notUsed: [...notUsed, ...notUsedParsed(parsed.data)] };
  const issue = parsed.error.issues[0]!;
  const where = issue.path.length > 0 ? issue.path.join('.') : '(the top level)';
  const hint = issue.code === 'unrecognized_keys' ? unknownKeyHint(issue.path, issue.keys) : '';
  throw new ConfigError(`the settings file ${file.path} is wrong at ${where}: ${issue.message}${hint}`);
}
