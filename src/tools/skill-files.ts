// A skill's folder is a real folder the model is told about ("Base directory for this skill: <folder>", as
// Claude Code does), often outside the workspace (the user's ~/.claude/skills). Its files are read there
// through read_file and list_dir, and its scripts run there through bash; nothing writes to it. Logs from
// before that named the files `/agentchart-skills/<name>/<file>`, which read_file still reads.
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { WorkspaceError } from '../errors/workspace-error.ts';
import { isInside } from './workspace.ts';

/** Where skill files appeared to the model in older logs; read_file still reads these paths. */
export const skillRoot = '/agentchart-skills';

/**
 * A discovered skill: its name (its folder's), description (front matter, or the body's first paragraph),
 * `when_to_use` and `arguments` when given, and its folder's real path as the model is told it (`session.start` records it).
 */
export type SkillEntry = {
  name: string;
  description: string;
  whenToUse?: string;
  /** The names of the front matter's `arguments`, for `$name` placeholders. */
  arguments?: string[];
  folder: string;
};

/**
 * Where one skill's files are: `shown` is the folder the model was told (the recorded one), `local` the
 * folder on this machine. They differ only in a replay or resume somewhere else.
 */
export type SkillPlace = { shown: string; local: string };

/** An agent's skills by name. */
export type SkillFolders = ReadonlyMap<string, SkillPlace>;

/** A skill path resolved on this machine: the real path to open, and how to name it to the model. */
export type SkillPath = { real: string; shown: string };

/**
 * The real path of a file or folder of a skill that `userPath` names — an absolute path inside a skill's
 * folder (as told to the model, or where it is here) or an old `/agentchart-skills/<name>/<file>` path — or
 * undefined when it names no skill's (it is then a workspace path). The real path (symbolic links resolved)
 * must lie inside the skill's folder.
 *
 * @throws WorkspaceError when the path is under a skill folder but names nothing readable in it.
 */
export async function resolveSkillPath(
  skills: SkillFolders | undefined,
  userPath: string,
): Promise<SkillPath | undefined> {
  const found = virtualPath(skills, userPath) ?? placeOf(skills, userPath);
  if (found === undefined) return undefined;
  const { place, rest } = found;
  let folderReal: string;
  let real: string;
  try {
    folderReal = await realpath(place.local);
    real = await realpath(path.join(folderReal, ...rest));
  } catch {
    throw refused(userPath, 'not_found', 'names no file of that skill');
  }
  if (!isInside(folderReal, real))
    throw refused(userPath, 'outside', "leads outside the skill's folder through a symbolic link");
  return { real, shown: userPath };
}

/** An old virtual path's skill and the parts below its folder. */
function virtualPath(
  skills: SkillFolders | undefined,
  userPath: string,
): { place: SkillPlace; rest: string[] } | undefined {
  if (userPath !== skillRoot && !userPath.startsWith(`${skillRoot}/`)) return undefined;
  const [name = '', ...rest] = userPath.slice(skillRoot.length + 1).split('/');
  const place = skills?.get(name);
  if (place === undefined) throw refused(userPath, 'not_found', 'names no skill of this agent');
  if (rest.length === 0 || rest.some((part) => part === '..' || part === '.' || part === ''))
    throw refused(userPath, 'outside', 'is not the path of a file in a skill folder');
  return { place, rest };
}

/** The skill whose folder (as told, or as here) holds the absolute path `userPath`, lexically. */
function placeOf(
  skills: SkillFolders | undefined,
  userPath: string,
): { place: SkillPlace; rest: string[] } | undefined {
  if (skills === undefined || !path.isAbsolute(userPath) || userPath.includes('\0')) return undefined;
  const absolute = path.resolve(userPath);
  for (const place of skills.values()) {
    for (const folder of [place.shown, place.local]) {
      if (!isInside(folder, absolute)) continue;
      const relative = path.relative(folder, absolute);
      return { place, rest: relative === '' ? [] : relative.split(path.sep) };
    }
  }
  return undefined;
}

/**
 * The skill folder that holds `real` (a resolved real path), or undefined: what write_file and edit_file
 * refuse, since a skill's folder is read-only to the agent.
 */
export async function skillFolderHolding(
  skills: SkillFolders | undefined,
  real: string,
): Promise<string | undefined> {
  for (const place of skills?.values() ?? []) {
    const local = await realpath(place.local).catch(() => place.local);
    if (isInside(local, real)) return place.shown;
    if (isInside(place.shown, real)) return place.shown;
  }
  return undefined;
}

/** The WorkspaceError write_file and edit_file give for a path in a skill's folder. */
export function skillNotWritable(userPath: string, folder: string): WorkspaceError {
  return new WorkspaceError(
    'not_writable',
    userPath,
    `${JSON.stringify(userPath)} is in the folder of a skill (${folder}), which is read-only: skill files ` +
      'are read and run, never written. Write your own files in the workspace.',
  );
}

/**
 * A command line with each skill folder as told to the model replaced by where it is on this machine, and
 * back (`toShown`) for its output: a replay elsewhere runs `python3 <recorded folder>/scripts/x.py` from
 * the skill's folder here and logs what the recording logged. Identity when the folders are the same.
 */
export function relocateSkillPaths(
  skills: SkillFolders | undefined,
  text: string,
  direction: 'toLocal' | 'toShown',
): string {
  let result = text;
  for (const place of skills?.values() ?? []) {
    if (place.shown === place.local) continue;
    const [from, to] = direction === 'toLocal' ? [place.shown, place.local] : [place.local, place.shown];
    // The folder itself or a path below it, not a longer name that starts the same (`…/pdf` in `…/pdf-2`).
    const folder = new RegExp(`${from.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![^/\\s'"\`;&|)<>:,])`, 'g');
    result = result.replace(folder, () => to);
  }
  return result;
}

function refused(userPath: string, kind: 'outside' | 'not_found', what: string): WorkspaceError {
  return new WorkspaceError(
    kind,
    userPath,
    `${JSON.stringify(userPath)} ${what}. A skill's files are read by their paths under the base directory ` +
      'its skill tool result gave; they cannot be written.',
  );
}
