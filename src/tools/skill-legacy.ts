// The `skill` tool as sessions recorded before skills named their real folder used it: the body wrapped in
// `<skill name="…">` and the folder's files as `/agentchart-skills/<name>/<file>` paths (which read_file
// still reads). A session whose `session.start` offered this tool gets it again when it is resumed or
// replayed, so its log goes on as it was recorded.
import { z } from 'zod/v4';
import { defineTool } from './define-tool.ts';
import { skillBody } from './skill-body.ts';
import { type SkillEntry, type SkillFolders, skillRoot } from './skill-files.ts';
import { listedSkillFiles, listSkillFiles, openSkill } from './skill-list.ts';

/** The description the recorded tool had: how a recording that offered it is recognised. */
export const legacySkillToolDescription =
  'Load a skill from the list of skills in your instructions: returns its instructions and the files ' +
  'its folder holds (read those with read_file, by the paths given). Load a skill before a task it ' +
  'describes; its instructions take precedence over general habits.';

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
      const opened = await openSkill(byName, places, name);
      if ('failed' in opened) return opened.failed;
      const files = await listSkillFiles(opened.local, ctx.signal);
      const folder =
        files.length === 0
          ? 'The skill folder holds no other files.'
          : `Other files in the skill folder (read them with read_file when the instructions call for them):\n${listedSkillFiles(files, (file) => `${skillRoot}/${name}/${file}`)}`;
      return `<skill name="${name}">\n${skillBody(opened.text).trim()}\n</skill>\n\n${folder}`;
    },
  });
}
