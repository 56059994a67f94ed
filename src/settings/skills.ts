// Skills: folders holding a SKILL.md (Anthropic's Agent Skills format, as Claude Code reads it), found in the
// user's `~/.claude/skills/` and `~/.agentchart/skills/` and in the workspace's `.claude/skills/` and
// `.agentchart/skills/`. Their names and descriptions are listed in the system prompt; the `skill` tool
// loads one on demand.
import { readdir, realpath } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { configFileLimit, readRegularText } from '../core/read-limited.ts';
import { messageOf } from '../errors/describe-value.ts';
import { argumentNamesOf, skillBody } from '../tools/skill-body.ts';
import type { SkillEntry } from '../tools/skill-files.ts';
import { parseFrontMatter, startsWithFrontMatter } from './front-matter.ts';
import { userConfigFolder } from './settings-file.ts';

/** A SKILL.md that was not taken, and why (logged in `session.start` as `config.skillsSkipped`). */
export type SkippedSkill = { file: string; problem: string };

export type SkillCatalogue = { skills: SkillEntry[]; skipped: SkippedSkill[] };

/**
 * Characters of `description` + `when_to_use` one skill gets in the listing: Claude Code cuts there
 * (`skillListingMaxDescChars`, skills [current]); the whole text stays in the catalogue.
 */
export const maxListedDescriptionChars = 1536;

/**
 * Where skills are looked for, first place first: a name found earlier wins over the same name later. The
 * user's folders come first, as in Claude Code (personal skills win over a project's), so a cloned
 * repository cannot stand in for a skill the user installed.
 */
export function skillFolders(cwd: string, env: Record<string, string | undefined>): string[] {
  return [
    path.join(env.HOME || homedir(), '.claude', 'skills'),
    path.join(userConfigFolder(env), 'skills'),
    path.join(cwd, '.claude', 'skills'),
    path.join(cwd, '.agentchart', 'skills'),
  ];
}

/**
 * Finds the skills in `folders`. As in Claude Code, a skill's name is its folder's name (the front
 * matter's `name` is only a label), no length limit applies to it, front matter is optional and a missing
 * `description` is the body's first paragraph. Skipped, not fatal, with the reason in `skipped`: a folder
 * name that holds control characters, front matter that cannot be read, `disable-model-invocation` (Claude
 * Code offers those only as a person's /command, which agentchart has not), a SKILL.md that is not a regular
 * file (a FIFO, a device, a folder: never opened for a blocking read), one over 1 MiB or unreadable, and a
 * second skill of a name found already.
 */
export async function discoverSkills(folders: readonly string[]): Promise<SkillCatalogue> {
  const skills: SkillEntry[] = [];
  const skipped: SkippedSkill[] = [];
  const seen = new Set<string>();
  for (const root of folders) {
    // The same folder named twice (HOME is the workspace) is one folder.
    const rootReal = await realpath(root).catch(() => root);
    if (seen.has(rootReal)) continue;
    seen.add(rootReal);
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

function skillOf(text: string, folderName: string): Omit<SkillEntry, 'folder'> | { problem: string } {
  // The name goes into the system prompt's listing as one line and is what the model calls the skill by.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u001f\u007f]/.test(folderName))
    return { problem: `the folder name ${JSON.stringify(folderName)} holds control characters` };
  const front = startsWithFrontMatter(text) ? parseFrontMatter(text) : { fields: {} };
  if ('problem' in front) return front;
  // Claude Code offers such a skill only as the user's /command; agentchart has none, so the model never sees it.
  if (/^(true|yes|on|1)$/i.test(front.fields['disable-model-invocation']?.trim() ?? ''))
    return {
      problem: 'its front matter says disable-model-invocation (only a person may start it, with a /command)',
    };
  const { description, when_to_use: whenToUse } = front.fields;
  const given = description?.trim() ?? '';
  const names = argumentNamesOf(front.fields.arguments);
  return {
    name: folderName,
    description: given !== '' ? given : firstParagraph(skillBody(text)),
    ...(whenToUse !== undefined && whenToUse.trim() !== '' ? { whenToUse: whenToUse.trim() } : {}),
    ...(names.length > 0 ? { arguments: names } : {}),
  };
}

/** The first paragraph of a body (Claude Code's description when the front matter gives none), one line. */
function firstParagraph(body: string): string {
  const paragraph = body
    .trim()
    .split(/\r?\n[ \t]*\r?\n/)
    .find((part) => part.trim() !== '');
  return (paragraph ?? '').replace(/\s+/g, ' ').trim();
}

/** What the listing says of one skill: description and `when_to_use`, cut at Claude Code's limit. */
export function listedDescription(skill: SkillEntry): string {
  const text = [skill.description, skill.whenToUse ?? ''].filter((part) => part !== '').join(' ');
  const flat = text.replace(/\s*\r?\n\s*/g, ' ');
  return flat.length > maxListedDescriptionChars ? `${flat.slice(0, maxListedDescriptionChars - 1)}…` : flat;
}

/** The system prompt's part that lists the skills (empty without skills). */
export function skillCatalogueText(skills: readonly SkillEntry[]): string {
  if (skills.length === 0) return '';
  const lines = skills.map((skill) => {
    const description = listedDescription(skill);
    return description === '' ? `- ${skill.name}` : `- ${skill.name}: ${description}`;
  });
  return (
    '# Skills\n' +
    'These skills hold instructions and files for particular tasks. When a task matches a description, ' +
    'load the skill with the skill tool before you start, and follow it.\n' +
    lines.join('\n')
  );
}
