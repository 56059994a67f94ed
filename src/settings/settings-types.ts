// The shapes of read settings: which file, how far it is trusted, and what the merged files give.
import type { HooksSettings } from '../hooks/settings-schema.ts';
import type { McpServers } from '../mcp/server-config.ts';
import type { PermissionMode } from '../permissions/modes.ts';

/**
 * Which parts of the workspace's files count in full: each only when the person said so. Untrusted, their MCP
 * servers and hooks (which could run any command) are left out, and their permissions may only make things
 * stricter: deny and ask rules and a stricter `defaultMode` apply, allow rules and a looser mode do not.
 */
export type SettingsTrust = {
  trustWorkspaceMcp?: boolean;
  trustWorkspaceHooks?: boolean;
  trustWorkspacePermissions?: boolean;
};

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

/** A value of Claude Code's that agentchart accepts and does not use (`model`, `statusLine`, …), and why. */
export type NotUsedSetting = SettingSource & { why: string };

/** The settings of one invocation, user file first, then the workspace's (which win where they differ). */
export type LoadedSettings = {
  permissions: {
    allow: string[];
    /** Rules whose calls always ask; like deny rules, every file's apply. */
    ask: string[];
    deny: string[];
    defaultMode?: PermissionMode;
    /** A file in force said `disableBypassPermissionsMode: "disable"`: bypass mode is refused. */
    disableBypassPermissionsMode?: true;
  };
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
  /** Claude Code's values the files hold that agentchart does not use, with why. */
  notUsed: NotUsedSetting[];
  /**
   * What the check of tool names found that does not stop a run (a matcher's regular expression that matches
   * no tool today, a rule about an MCP server that is not configured); filled where the tools are known
   * (system creation, the CLI's settings load), empty until then. See tool-name-check.ts.
   */
  warnings: string[];
};
