// `agentchart config` shows the skills `run` would offer and every SKILL.md it would skip, with why.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCliWorld } from '../support/cli-world.ts';
import { runCli } from './cli-harness.ts';

describe('agentchart config and skills', () => {
  const world = useCliWorld({ prefix: 'agentchart-config-skills', realWorkspace: true });

  const addSkill = async (folder: string, text: string) => {
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, 'SKILL.md'), text);
  };

  it('lists the skills found, the user folders first, and each one skipped with the reason', async () => {
    const { home, workspace } = world;
    await addSkill(join(home, '.claude', 'skills', 'Release-Notes'), '---\ndescription: Notes.\n---\nBody\n');
    await addSkill(join(workspace, '.claude', 'skills', 'Release-Notes'), '---\ndescription: Theirs.\n---\n');
    await addSkill(join(workspace, '.claude', 'skills', 'broken'), '---\ndescription: "open\n---\n');
    await addSkill(join(workspace, '.agentchart', 'skills', 'review'), 'Reviews a diff.\n');
    const text = await runCli(['config', '--cwd', workspace], { env: { HOME: home } });
    expect(text.code).toBe(0);
    expect(text.stdout.split('\n').slice(0, 6)).toEqual([
      `Skills for ${workspace} (a name found first wins):`,
      `  Release-Notes  ${join(home, '.claude', 'skills', 'Release-Notes')}`,
      `  review  ${join(workspace, '.agentchart', 'skills', 'review')}`,
      `  skipped: ${join(workspace, '.claude', 'skills', 'Release-Notes', 'SKILL.md')}: a skill named "Release-Notes" was found first`,
      `  skipped: ${join(workspace, '.claude', 'skills', 'broken', 'SKILL.md')}: front matter key "description": a double-quoted value is not closed`,
      '',
    ]);
    const json = JSON.parse(
      (await runCli(['config', '--cwd', workspace, '--json'], { env: { HOME: home } })).stdout,
    );
    expect(
      json.skills.skills.map((skill: { name: string; description: string }) => [
        skill.name,
        skill.description,
      ]),
    ).toEqual([
      ['Release-Notes', 'Notes.'],
      ['review', 'Reviews a diff.'],
    ]);
    expect(json.skills.skipped).toHaveLength(2);
  });
});
