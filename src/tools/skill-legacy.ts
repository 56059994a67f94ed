// The `skill` tool as sessions recorded before skills named their real folder used it: the body wrapped in
// `<skill name="…">` and the folder's files as `/agentchart-skills/<name>/<file>` paths (which read_file
// still reads). A session whose `session.start` offered this tool gets it again when it is resumed or
// replayed, so its log goes on as it was recorded.
import path from 'node:path';
import { z } from 'zod/v4';
import { configFileLimit, readRegularText } from '../core/read-limited.ts';
import { defineTool } from './define-tool.ts';
import { skillBody } from './skill-body.ts';
import { type SkillEntry, type SkillFolders, skillRoot } from './skill-files.ts';
import { listSkillFiles } from './skill-list.ts';
import { failure } from './tool-failure.ts';

/** The description the recorded tool had: how a recording that offered it is recognised. */
export const legacySkillToolDescription =
  'Load a skill from the list of skills in your instructions: returns its instructions and the files ' +
  'its folder holds (read those with read_file, by the paths given). Load a skill before a task it ' +
  'describes; its instructions take precedence over general habits.';

const maxListedFiles = 200;

/** `skill{name}` as recorded before base folders: see the file's header. */
export function legacySkillTool(catalogue: readonly SkillEntry[], places?: SkillFolders) {
  const byName = new Map(catalogue.map((entry) => [entry.name, entry]));
  return defineTool({
    name: 'skill',
    description: legacySkillToolDescription,
    input: z.object({ name: z.string().describe('The name of the skill, as listed.') }),
    access: 'read',
    concurrencySafe: true,
    run: async ({ name }, ctx) => {
      const entry = byName.get(name);
      if (entry === undefined) {
        const known = [...byName.keys()].join(', ');
        return failure(`There is no skill named ${JSON.stringify(name)}. Skills: ${known || '(none)'}.`);
      }
      const local = places?.get(name)?.local ?? entry.folder;
      const read = await readRegularText(path.join(local, 'SKILL.md'), configFileLimit);
      if (!('text' in read)) return failure(`The SKILL.md of skill ${JSON.stringify(name)} ${read.refused}.`);
      const files = await listSkillFiles(local, ctx.signal);
      const listed = files.slice(0, maxListedFiles).map((file) => `- ${skillRoot}/${name}/${file}`);
      const more = files.length > maxListedFiles ? [`- … and ${files.length - maxListedFiles} more`] : [];
      const folder =
        files.length === 0
          ? 'The skill folder holds no other files.'
          : `Other files in the skill folder (read them with read_file when the instructions call for them):\n${[...listed, ...more].join('\n')}`;
      return `<skill name="${name}">\n${skillBody(read.text).trim()}\n</skill>\n\n${folder}`;
    },
  });
}
