// A skill's folder lies outside the workspace (the user's ~/.agentchart/skills) or inside it; either way the
// model reads its files through a path of their own, `/agentchart-skills/<name>/<file>`, read-only, and
// only inside that skill's folder. Writes go through the workspace rules, which refuse these paths.
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { WorkspaceError } from '../errors/workspace-error.ts';
import { isInside } from './workspace.ts';

/** Where skill files appear to the model; the same on every machine, so a log that names one replays. */
export const skillRoot = '/agentchart-skills';

/** A discovered skill: its name and description (from SKILL.md's front matter) and its folder. */
export type SkillEntry = { name: string; description: string; folder: string };

/** The model's path of a file in a skill's folder (`relative` uses `/`). */
export function skillFilePath(name: string, relative: string): string {
  return `${skillRoot}/${name}/${relative}`;
}

/**
 * The real path of the skill file a model path names, or undefined when the path is not under
 * `skillRoot` (it is then a workspace path). The skill must be one the agent has, the path may not climb
 * out with `..`, and the file's real path (symbolic links resolved) must lie inside the skill's folder.
 *
 * @throws WorkspaceError when the path is under the root but names no readable file of a skill.
 */
export async function resolveSkillFile(
  skills: ReadonlyMap<string, string> | undefined,
  userPath: string,
): Promise<string | undefined> {
  if (userPath !== skillRoot && !userPath.startsWith(`${skillRoot}/`)) return undefined;
  const [name = '', ...rest] = userPath.slice(skillRoot.length + 1).split('/');
  const folder = skills?.get(name);
  if (folder === undefined) throw refused(userPath, 'not_found', 'names no skill of this agent');
  if (rest.length === 0 || rest.some((part) => part === '..' || part === '.' || part === ''))
    throw refused(userPath, 'outside', 'is not the path of a file in a skill folder');
  let folderReal: string;
  let real: string;
  try {
    folderReal = await realpath(folder);
    real = await realpath(path.join(folderReal, ...rest));
  } catch {
    throw refused(userPath, 'not_found', 'names no file of that skill');
  }
  if (!isInside(folderReal, real) || real === folderReal)
    throw refused(userPath, 'outside', "leads outside the skill's folder through a symbolic link");
  return real;
}

function refused(userPath: string, kind: 'outside' | 'not_found', what: string): WorkspaceError {
  return new WorkspaceError(
    kind,
    userPath,
    `${JSON.stringify(userPath)} ${what}. Skill files are read with the paths the skill tool listed ` +
      `(${skillRoot}/<skill>/<file>); they cannot be written.`,
  );
}
