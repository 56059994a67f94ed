import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { configFileLimit, readRegularText } from '../core/read-limited.ts';
import type { ToolOutput } from './define-tool.ts';
import type { SkillEntry, SkillFolders } from './skill-files.ts';
import { failure } from './tool-failure.ts';

/** How many of a skill's files a load lists before it says how many more there are. */
const maxListedFiles = 200;

/** The files under a skill's folder, relative with `/`, sorted; SKILL.md itself and dot folders left out. */
export async function listSkillFiles(folder: string, signal: AbortSignal): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  signal.throwIfAborted();
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(folder, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'))
    .filter((file) => file !== 'SKILL.md' && !file.split('/').some((part) => part.startsWith('.')))
    .sort();
}

/** A skill to load: its catalogue entry, where its folder is on this machine, and its SKILL.md's text. */
export type OpenedSkill = { entry: SkillEntry; local: string; text: string };

/**
 * The skill `name` of a catalogue, its SKILL.md read again now (the catalogue was made at creation; the
 * file may have changed since, even into a FIFO), or the failure the model reads. Both skill tools (the
 * current one and the one old recordings offered) load a skill this way.
 */
export async function openSkill(
  byName: ReadonlyMap<string, SkillEntry>,
  places: SkillFolders | undefined,
  name: string,
): Promise<OpenedSkill | { failed: ToolOutput }> {
  const entry = byName.get(name);
  if (entry === undefined) {
    const known = [...byName.keys()].join(', ');
    return {
      failed: failure(`There is no skill named ${JSON.stringify(name)}. Skills: ${known || '(none)'}.`),
    };
  }
  const local = places?.get(name)?.local ?? entry.folder;
  const read = await readRegularText(path.join(local, 'SKILL.md'), configFileLimit);
  if (!('text' in read))
    return { failed: failure(`The SKILL.md of skill ${JSON.stringify(name)} ${read.refused}.`) };
  return { entry, local, text: read.text };
}

/** A skill folder's files as the lines of a load's answer (`shown` names each), at most 200 and a count. */
export function listedSkillFiles(files: readonly string[], shown: (file: string) => string): string {
  const listed = files.slice(0, maxListedFiles).map((file) => `- ${shown(file)}`);
  const more = files.length > maxListedFiles ? [`- … and ${files.length - maxListedFiles} more`] : [];
  return [...listed, ...more].join('\n');
}
