// Skills: folders holding a SKILL.md (Anthropic's Agent Skills format), found in the workspace's
// `.agentchart/skills/` and `.claude/skills/` and in the user's `~/.agentchart/skills/`. Their names and
// descriptions are listed in the system prompt; the `skill` tool loads one on demand.
import { readdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import { configFileLimit, readRegularText } from '../core/read-limited.ts';
import { messageOf } from '../errors/describe-value.ts';
import type { SkillEntry } from '../tools/skill-files.ts';
import { parseFrontMatter } from './front-matter.ts';
import { userConfigFolder } from './settings-file.ts';

/** A SKILL.md that was not taken, and why (logged in `session.start` as `config.skillsSkipped`). */
export type SkippedSkill = { file: string; problem: string };

export type SkillCatalogue = { skills: SkillEntry[]; skipped: SkippedSkill[] };

const namePattern = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const maxNameChars = 64;
const maxDescriptionChars = 1024;

/** Where skills are looked for, first place first: a name found earlier wins over the same name later. */
export function skillFolders(cwd: string, env: Record<string, string | undefined>): string[] {
  return [
    path.join(cwd, '.agentchart', 'skills'),
    path.join(cwd, '.claude', 'skills'),
    path.join(userConfigFolder(env), 'skills'),
  ];
}

/**
 * Finds the skills of a workspace. A SKILL.md whose front matter is missing or wrong (no `name` or
 * `description`, a name that is not lowercase words joined by `-`, a name that differs from its folder's, a
 * description over 1024 characters) is skipped, not fatal: the agent runs without it, and the reason is
 * in `skipped`. So is a SKILL.md that is not a regular file (a FIFO, a device, a folder: never opened for a
 * blocking read), one over 1 MiB, or one that cannot be read. A second skill of the same name is skipped too.
 */
export async function discoverSkills(folders: readonly string[]): Promise<SkillCatalogue> {
  const skills: SkillEntry[] = [];
  const skipped: SkippedSkill[] = [];
  for (const root of folders) {
    const names = await readdir(root, { withFileTypes: true }).catch(() => []);
    const folders = names.filter((entry) => entry.isDirectory() || entry.isSymbolicLink());
    for (const entry of folders.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const folder = path.join(root, entry.name);
      const file = path.join(folder, 'SKILL.md');
      const text = await readSkillFile(file);
      if (text === undefined) continue;
      const read = typeof text === 'string' ? skillOf(text, entry.name) : text;
      if ('problem' in read) skipped.push({ file, problem: read.problem });
      else if (skills.some((skill) => skill.name === read.name))
        skipped.push({ file, problem: `a skill named "${read.name}" was found first` });
      else skills.push({ ...read, folder: await realpath(folder) });
    }
  }
  return { skills, skipped };
}

/** The text of a SKILL.md; undefined when there is none; why it cannot be used when it is not a file. */
async function readSkillFile(file: string): Promise<string | { problem: string } | undefined> {
  try {
    const read = await readRegularText(file, configFileLimit);
    return 'text' in read ? read.text : { problem: `it ${read.refused}` };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // No SKILL.md (or the folder entry is a link to a file): not a skill folder, nothing to report.
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    return { problem: `it cannot be read: ${messageOf(error)}` };
  }
}

function skillOf(
  text: string,
  folderName: string,
): { name: string; description: string } | { problem: string } {
  const front = parseFrontMatter(text);
  if ('problem' in front) return front;
  const { name, description } = front.fields;
  if (name === undefined || name.trim() === '') return { problem: 'its front matter has no "name"' };
  if (description === undefined || description.trim() === '')
    return { problem: 'its front matter has no "description"' };
  if (!namePattern.test(name) || name.length > maxNameChars)
    return {
      problem: `the name "${name}" must be lowercase letters, digits and "-", at most ${maxNameChars}`,
    };
  if (name !== folderName)
    return { problem: `the name "${name}" differs from its folder's ("${folderName}")` };
  if (description.length > maxDescriptionChars)
    return { problem: `the description is longer than ${maxDescriptionChars} characters` };
  return { name, description: description.trim() };
}

/** The system prompt's part that lists the skills (empty without skills). */
export function skillCatalogueText(skills: readonly SkillEntry[]): string {
  if (skills.length === 0) return '';
  const lines = skills.map((skill) => `- ${skill.name}: ${skill.description}`);
  return (
    '# Skills\n' +
    'These skills hold instructions and files for particular tasks. When a task matches a description, ' +
    'load the skill with the skill tool before you start, and follow it.\n' +
    lines.join('\n')
  );
}
