// What `resume` and `compact` share: open a recorded session file and choose how to run it again (its
// workspace, model and permission mode, from the flags first and the session's own record second).
import { resolve } from 'node:path';
import type { Hooks } from '../hooks/hook-types.ts';
import type { McpServers } from '../mcp/server-config.ts';
import { type PermissionMode, permissionModes } from '../permissions/modes.ts';
import type { Provider } from '../providers/types.ts';
import { fileStore } from '../session/file-store.ts';
import { assertSessionStarted } from '../session/log-text.ts';
import { sessionFileLocation, sessionFilePath } from '../session/session-files.ts';
import { isEvent, type LogEvent, type SessionStore } from '../session/types.ts';
import { type AgentFlags, providerFor, workspaceOf } from './agent-flags.ts';
import { sessionByIdOrPath } from './chat/session-lookup.ts';
import { type CliRules, permissionsOf } from './cli-permissions.ts';
import { sessionSearchFolders } from './session-folders.ts';
import { type CliIo, line } from './terminal/io.ts';

export type RecordedSession = {
  sessionFile: string;
  sessionId: string;
  store: SessionStore;
  events: LogEvent[];
  cwd: string;
  provider: Provider;
  /** The model, in words, for the line that says what runs. */
  description: string;
  mode: PermissionMode;
  /** Allow, ask and deny rules from the flags and the settings files. */
  rules: CliRules;
  /** MCP servers from the settings files this invocation trusts. */
  mcpServers: McpServers;
  /** Command hooks from the settings files this invocation trusts. */
  hooks: Hooks;
};

/**
 * Loads a session (an id of this workspace, or a file; warnings go to stderr), refuses an empty one, and
 * picks the workspace, the model and the mode. The recorded model is kept when the same provider is
 * chosen again and `--model` is not given.
 */
export async function openRecordedSession(
  idOrFile: string,
  flags: AgentFlags,
  io: CliIo,
): Promise<RecordedSession> {
  const sessionFile = resolve(io.cwd, await sessionFileOf(idOrFile, flags, io));
  const { dir, sessionId } = sessionFileLocation(sessionFile);
  const store = fileStore(dir);
  const { events, warnings } = await store.load(sessionId);
  assertSessionStarted(events, 'delete the file to reuse the id', sessionFile);
  for (const warning of warnings) line(io.stderr, `agentchart: ${warning}`);
  const config = sessionConfig(events);
  const cwd = await workspaceOf(
    io,
    flags.cwd ?? config.cwd,
    flags.cwd === undefined ? 'recorded in the session; pass --cwd to use another' : '--cwd',
  );
  const chosen = await providerFor(io, flags);
  const sameProvider = flags.model === undefined && chosen.provider.name === config.provider;
  const { provider, description } =
    sameProvider && config.model ? await providerFor(io, flags, config.model) : chosen;
  const { mode, rules, mcpServers, hooks } = await permissionsOf(io, flags, cwd, config.mode);
  return {
    sessionFile,
    sessionId,
    store,
    events,
    cwd,
    provider,
    description,
    mode,
    rules,
    mcpServers,
    hooks,
  };
}

/** What `session.start` (and `mode.changed`) recorded about how the session ran. */
function sessionConfig(events: readonly LogEvent[]): {
  cwd?: string;
  provider?: string;
  model?: string;
  mode?: PermissionMode;
} {
  const start = events[0];
  if (!start || !isEvent(start, 'session.start')) return {};
  const { cwd, provider, model } = start.data.config;
  const mode = recordedMode(events);
  return {
    ...(typeof cwd === 'string' ? { cwd } : {}),
    ...(typeof provider === 'string' ? { provider } : {}),
    ...(typeof model === 'string' ? { model } : {}),
    ...(mode ? { mode } : {}),
  };
}

/**
 * The mode a session ran in last: `session.start`'s, replaced by every `mode.changed` (a plan accepted,
 * a host's or a person's switch). Undefined when the log names no mode agentchart knows.
 */
export function recordedMode(events: readonly LogEvent[]): PermissionMode | undefined {
  const start = events[0];
  if (!start || !isEvent(start, 'session.start')) return undefined;
  const changes = events.filter((event) => isEvent(event, 'mode.changed'));
  const last = changes.at(-1)?.data.to ?? start.data.config.permissionMode;
  return permissionModes.find((known) => known === last);
}

/** An id (no `/`, no `.jsonl`) is looked up in the workspace's session folders; a path is kept. */
async function sessionFileOf(idOrPath: string, flags: AgentFlags, io: CliIo): Promise<string> {
  if (idOrPath.includes('/') || idOrPath.endsWith('.jsonl')) return idOrPath;
  const workspace = resolve(io.cwd, flags.cwd ?? '.');
  const folders = sessionSearchFolders(workspace, io.env, flags.sessionDir, io.cwd);
  const { dir, sessionId } = await sessionByIdOrPath(idOrPath, folders, io.cwd);
  return sessionFilePath(dir, sessionId);
}
