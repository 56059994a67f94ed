import path from 'node:path';
import { z } from 'zod/v4';
import { defineTool } from './define-tool.ts';
import { renderSkillBody, skillBody } from './skill-body.ts';
import type { SkillEntry, SkillFolders } from './skill-files.ts';
import { listedSkillFiles, listSkillFiles, openSkill } from './skill-list.ts';

/** The name of the tool that loads a skill. */
export const skillToolName = 'skill';

/**
 * `skill{name, args?}`: loads one skill of the catalogue the system prompt lists, as Claude Code does:
 * `Base directory for this skill: <folder>`, then the body of its SKILL.md (without the front matter, its
 * placeholders filled), then the other files of its folder relative to that folder. Read access, safe
 * beside other reads. `places` says where each skill's folder is on this machine (the catalogue's folder,
 * unless a replay runs elsewhere); the model is always told the catalogue's.
 */
export function skillTool(catalogue: readonly SkillEntry[], places?: SkillFolders) {
  const byName = new Map(catalogue.map((entry) => [entry.name, entry]));
  return defineTool({
    name: skillToolName,
    description:
      'Load a skill from the list of skills in your instructions: returns its base directory, its ' +
      'instructions and the files its folder holds. Run its scripts with bash by their paths under the base ' +
      'directory and read its files with read_file; the folder is read-only. Load a skill before a task it ' +
      'describes; its instructions take precedence over general habits.',
    input: z.object({
      name: z.string().describe('The name of the skill, as listed.'),
      args: z
        .string()
        .optional()
        .describe('Arguments for the skill, when its instructions take any ($ARGUMENTS in them).'),
    }),
    access: 'read',
    concurrencySafe: true,
    run: async ({ name, args }, ctx) => {
      const opened = await openSkill(byName, places, name);
      if ('failed' in opened) return opened.failed;
      const { entry, local } = opened;
      const body = renderSkillBody(skillBody(opened.text), {
        folder: entry.folder,
        args,
        argumentNames: entry.arguments ?? [],
        sessionId: ctx.agentId,
        projectDir: path.resolve(ctx.cwd),
      });
      const files = await listSkillFiles(local, ctx.signal);
      const folder =
        files.length === 0
          ? 'The skill folder holds no other files.'
          : `Other files in the skill folder, relative to its base directory:\n${listedSkillFiles(files, (file) => file)}`;
      return `Base directory for this skill: ${entry.folder}\n\n${body.trim()}\n\n${folder}`;
    },
  });
}
