import { discoverSkills, type SkillCatalogue, skillFolders } from '../settings/skills.ts';
import { type CliIo, line } from './terminal/io.ts';

/** The skills `run` would offer in `cwd` (the user's and the workspace's folders), and those it would skip. */
export function skillsOf(cwd: string, env: CliIo['env']): Promise<SkillCatalogue> {
  return discoverSkills(skillFolders(cwd, env));
}

/**
 * `agentchart config`'s part on skills: each one found with its folder, then each SKILL.md skipped and why
 * (nothing when there is neither).
 */
export function printSkills(io: CliIo, cwd: string, catalogue: SkillCatalogue): void {
  if (catalogue.skills.length === 0 && catalogue.skipped.length === 0) return;
  line(io.stdout, `Skills for ${cwd} (a name found first wins):`);
  for (const skill of catalogue.skills) line(io.stdout, `  ${skill.name}  ${skill.folder}`);
  for (const { file, problem } of catalogue.skipped) line(io.stdout, `  skipped: ${file}: ${problem}`);
  line(io.stdout);
}
