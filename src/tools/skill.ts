import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod/v4';
import { configFileLimit, readRegularText } from '../core/read-limited.ts';
import { defineTool } from './define-tool.ts';
import { type SkillEntry, skillFilePath } from './skill-files.ts';
import { failure } from './tool-failure.ts';

/** The name of the tool that loads a skill. */
export const skillToolName = 'skill';

const maxListedFiles = 200;

/**
 * `skill{name}`: loads one skill of the catalogue the system prompt lists: the body of its SKILL.md
 * (without the front matter) and the other files of its folder, as paths `read_file` reads
 * (`/agentchart-skills/<name>/<file>`). Read access, safe beside other reads.
 */
export function skillTool(catalogue: readonly SkillEntry[]) {
  const byName = new Map(catalogue.map((entry) => [entry.name, entry]));
  return defineTool({
    name: skillToolName,
    description:
      'Load a skill from the list of skills in your instructions: returns its instructions and the files ' +
      'its folder holds (read those with read_file, by the paths given). Load a skill before a task it ' +
      'describes; its instructions take precedence over general habits.',
    input: z.object({ name: z.string().describe('The name of the skill, as listed.') }),
    access: 'read',
    concurrencySafe: true,
    run: async ({ name }, ctx) => {
      const entry = byName.get(name);
      if (entry === undefined) {
        const known = [...byName.keys()].join(', ');
        return failure(`There is no skill named ${JSON.stringify(name)}. Skills: ${known || '(none)'}.`);
      }
      // The catalogue was made at creation; the file may have changed since, even into a FIFO.
      const read = await readRegularText(path.join(entry.folder, 'SKILL.md'), configFileLimit);
      if (!('text' in read)) return failure(`The SKILL.md of skill ${JSON.stringify(name)} ${read.refused}.`);
      const body = skillBody(read.text);
      const files = await listFiles(entry.folder, ctx.signal);
      const listed = files.slice(0, maxListedFiles).map((file) => `- ${skillFilePath(name, file)}`);
      const more = files.length > maxListedFiles ? [`- … and ${files.length - maxListedFiles} more`] : [];
      const folder =
        files.length === 0
          ? 'The skill folder holds no other files.'
          : `Other files in the skill folder (read them with read_file when the instructions call for them):\n${[...listed, ...more].join('\n')}`;
      return `<skill name="${name}">\n${body.trim()}\n</skill>\n\n${folder}`;
    },
  });
}

/** SKILL.md without its front matter (the part between the first two `---` lines). */
export function skillBody(text: string): string {
  const match = /^\uFEFF?---\r?\n[\s\S]*?\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  return match ? text.slice(match[0].length) : text;
}

/** The files under a folder, relative with `/`, sorted; SKILL.md itself and dot folders left out. */
async function listFiles(folder: string, signal: AbortSignal): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  signal.throwIfAborted();
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(folder, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'))
    .filter((file) => file !== 'SKILL.md' && !file.split('/').some((part) => part.startsWith('.')))
    .sort();
}
