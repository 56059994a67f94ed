// Live tools replayed in a restored workspace: a skill the recording found inside its workspace
// (`<workspace>/.agentchart/skills/notes`) is in the restored copy at the same place, as every other file of
// the workspace is. The runtime keeps the recorded workspace path (it is what the recording's configuration
// says), so the skills loader cannot move the folder itself; the replay names the moved roots instead and
// the loader finds each such skill there by name.
import path from 'node:path';
import { isEvent, type LogEvent } from '../session/types.ts';
import { isInside } from '../tools/workspace.ts';

/**
 * The folders that hold the recording's workspace skills, at the same place under `workspace` (the folder
 * live tools run in). Empty when the recording has no skills inside its workspace, or runs where it was made.
 */
export function movedSkillRoots(recorded: readonly LogEvent[], workspace: string): string[] {
  const start = recorded[0];
  if (!start || !isEvent(start, 'session.start')) return [];
  const config = start.data.config as { cwd?: unknown; skills?: unknown };
  const cwd = config.cwd;
  if (typeof cwd !== 'string' || !path.isAbsolute(cwd) || !Array.isArray(config.skills)) return [];
  const target = path.resolve(workspace);
  if (target === path.resolve(cwd)) return [];
  const roots = new Set<string>();
  for (const entry of config.skills as { folder?: unknown }[]) {
    const folder = entry?.folder;
    if (typeof folder !== 'string' || !isInside(cwd, folder)) continue;
    roots.add(path.join(target, path.relative(cwd, path.dirname(folder))));
  }
  return [...roots];
}
