// Merging parsed settings files, later files winning, and recording where each value came from. A new
// key is one line in `mergeSettings`, one in `noteSources`, and a decision in `trustOf`: may a checked-out
// repository set it without the person trusting it?
import { mergeHooksSettings } from '../hooks/settings-schema.ts';
import { type PermissionMode, stricterMode } from '../permissions/modes.ts';
import type { Settings } from './settings-schema.ts';
import type {
  HeldPermissions,
  LoadedSettings,
  SettingSource,
  SettingsFile,
  SettingsTrust,
} from './settings-types.ts';

/** What one file's values may do, by part (a file of the user's or the host's may do everything). */
type FileTrust = { servers: boolean; hooks: boolean; permissions: boolean };

export function trustOf(file: SettingsFile, options: SettingsTrust): FileTrust {
  const own = file.scope !== 'workspace';
  return {
    servers: own || options.trustWorkspaceMcp === true,
    hooks: own || options.trustWorkspaceHooks === true,
    permissions: own || options.trustWorkspacePermissions === true,
  };
}

/** One file's trust, the mode in force before it, and what of its permissions is held back. */
export type MergeTrust = FileTrust & { modeBefore: PermissionMode; held: HeldPermissions };

/** A file's trust with what of its permissions is held back, given the mode in force before it. */
export function mergeTrust(settings: Settings, trust: FileTrust, modeBefore: PermissionMode): MergeTrust {
  return { ...trust, modeBefore, held: heldPermissions(settings, trust, modeBefore) };
}

/**
 * What of a file's permissions is held back: nothing when it is trusted; else its allow rules, and its
 * `defaultMode` when that is looser than the mode in force before it (`default` when none is set).
 */
function heldPermissions(settings: Settings, trust: FileTrust, modeBefore: PermissionMode): HeldPermissions {
  const { allow = [], defaultMode } = settings.permissions ?? {};
  if (trust.permissions) return { allow: [] };
  const looser = defaultMode !== undefined && stricterMode(defaultMode, modeBefore) !== defaultMode;
  return { allow: [...allow], ...(looser ? { defaultMode } : {}) };
}

export function mergeSettings(into: LoadedSettings, settings: Settings, trust: MergeTrust): void {
  if (settings.mcpServers) {
    if (trust.servers) Object.assign(into.mcpServers, settings.mcpServers);
    else into.untrustedMcpServers.push(...Object.keys(settings.mcpServers));
  }
  // Like MCP servers, a checked-out repository's hooks could run any command: only when trusted.
  if (trust.hooks) mergeHooksSettings(into.hooks, settings.hooks);
  else into.untrustedHooks.push(...Object.keys(settings.hooks ?? {}));
  const { permissions } = settings;
  if (!permissions) return;
  // Deny and ask rules only make things stricter, and so does switching bypass off: every file's apply.
  into.permissions.deny.push(...(permissions.deny ?? []));
  into.permissions.ask.push(...(permissions.ask ?? []));
  if (permissions.disableBypassPermissionsMode === 'disable')
    into.permissions.disableBypassPermissionsMode = true;
  if (trust.permissions) into.permissions.allow.push(...(permissions.allow ?? []));
  else into.untrustedPermissions.allow.push(...trust.held.allow);
  if (trust.held.defaultMode !== undefined) into.untrustedPermissions.defaultMode = trust.held.defaultMode;
  else if (permissions.defaultMode !== undefined) into.permissions.defaultMode = permissions.defaultMode;
}

/**
 * `disableAllHooks` as Claude Code reads it: the value of the last file that sets it wins; `true` turns the
 * files' command hooks off (their sources say so). Only a file trusted with hooks may set it, since turning
 * off the user's hooks (guards among them) loosens as much as adding one.
 */
export function applyDisableAllHooks(loaded: LoadedSettings): void {
  const setting = loaded.sources.findLast(
    (source) => source.key === 'disableAllHooks' && source.ignored === undefined,
  );
  if (setting?.value !== true) return;
  loaded.hooks = {};
  for (const source of loaded.sources)
    if (source.key.startsWith('hooks.') && source.ignored === undefined)
      source.ignored = `turned off by disableAllHooks in ${setting.file}`;
}

const untrustedPermissions = 'workspace permissions are not trusted (--workspace-permissions)';
const untrustedHooks = 'workspace hooks are not trusted (--workspace-hooks)';

/** Records what one file gave; a value it sets again overrides (and marks) the earlier file's. */
export function noteSources(
  sources: SettingSource[],
  settings: Settings,
  file: SettingsFile,
  trust: MergeTrust,
): void {
  const at = { file: file.path, scope: file.scope };
  const single = (key: string, value: unknown) => {
    for (const earlier of sources)
      if (earlier.key === key && earlier.ignored === undefined)
        earlier.ignored = `overridden by ${file.path}`;
    sources.push({ key, value, ...at });
  };
  const { permissions } = settings;
  for (const rule of permissions?.allow ?? [])
    sources.push({
      key: 'permissions.allow',
      value: rule,
      ...at,
      ...(trust.permissions ? {} : { ignored: untrustedPermissions }),
    });
  for (const rule of permissions?.ask ?? []) sources.push({ key: 'permissions.ask', value: rule, ...at });
  for (const rule of permissions?.deny ?? []) sources.push({ key: 'permissions.deny', value: rule, ...at });
  if (permissions?.disableBypassPermissionsMode !== undefined)
    sources.push({ key: 'permissions.disableBypassPermissionsMode', value: 'disable', ...at });
  const mode = permissions?.defaultMode;
  if (trust.held.defaultMode !== undefined)
    sources.push({
      key: 'permissions.defaultMode',
      value: mode,
      ...at,
      ignored: `looser than ${JSON.stringify(trust.modeBefore)}; ${untrustedPermissions}`,
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
  for (const key of ['allowedMcpServers', 'deniedMcpServers'] as const)
    for (const entry of settings[key] ?? []) sources.push({ key, value: entry, ...at });
  if (settings.disableAllHooks !== undefined) {
    if (trust.hooks) single('disableAllHooks', settings.disableAllHooks);
    else
      sources.push({
        key: 'disableAllHooks',
        value: settings.disableAllHooks,
        ...at,
        ignored: untrustedHooks,
      });
  }
  // Hooks of both files run (a list per event), so none overrides another; untrusted ones do not run.
  for (const [event, groups] of Object.entries(settings.hooks ?? {}))
    for (const group of groups)
      sources.push({
        key: `hooks.${event}`,
        value: group,
        ...at,
        ...(trust.hooks ? {} : { ignored: untrustedHooks }),
      });
}
