// Where the CLI keeps session logs: outside the workspace, in the user's state folder, one folder per
// workspace. Kept out of the workspace so the logs do not show up in `git status`, and so the agent's own
// tools (confined to the workspace) cannot rewrite the log of the session they run in.
import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { basename, isAbsolute, join, resolve } from 'node:path';

type Env = Record<string, string | undefined>;

/**
 * agentchart's state folder: `$XDG_STATE_HOME/agentchart` when that is set (an absolute path, as the XDG
 * spec requires), else the platform's usual place: `~/.local/state/agentchart` on Linux and other Unixes,
 * `~/Library/Application Support/agentchart` on macOS, `%LOCALAPPDATA%\agentchart\State` on Windows.
 * `HOME` from the environment wins over the OS's idea of it, as for the settings file.
 */
export function stateFolder(env: Env, platform: NodeJS.Platform = process.platform): string {
  const home = env.HOME || homedir();
  const xdg = env.XDG_STATE_HOME;
  if (xdg && isAbsolute(xdg)) return join(xdg, 'agentchart');
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'agentchart');
  if (platform === 'win32')
    return join(env.LOCALAPPDATA || join(home, 'AppData', 'Local'), 'agentchart', 'State');
  return join(home, '.local', 'state', 'agentchart');
}

/**
 * The folder name of one workspace: its base name, for a person browsing the folder, and a hash of its
 * full path, so two workspaces with the same name never share a folder.
 */
export function workspaceKey(cwd: string): string {
  const path = resolve(cwd);
  const name =
    basename(path)
      .replace(/[^A-Za-z0-9._-]/g, '_')
      .slice(0, 40) || 'root';
  return `${name}-${createHash('sha256').update(path).digest('hex').slice(0, 12)}`;
}

/** Where new sessions of a workspace are written: `--session-dir`, else the state folder's. */
export function sessionsFolder(cwd: string, env: Env, sessionDir?: string, from = cwd): string {
  if (sessionDir !== undefined) return resolve(from, sessionDir);
  return join(stateFolder(env), 'sessions', workspaceKey(cwd));
}

/** The sessions folder older versions wrote inside the workspace; still read, never written to anew. */
export function workspaceSessionsFolder(cwd: string): string {
  return join(cwd, '.agentchart', 'sessions');
}

/**
 * The folders a session id is looked up in, in order: where new sessions go, then the workspace's own
 * `.agentchart/sessions` (sessions recorded before they moved out of the workspace).
 */
export function sessionSearchFolders(cwd: string, env: Env, sessionDir?: string, from = cwd): string[] {
  const primary = sessionsFolder(cwd, env, sessionDir, from);
  const legacy = workspaceSessionsFolder(cwd);
  return primary === legacy ? [primary] : [primary, legacy];
}
