// Skills: SKILL.md folders found in the user's folders and the workspace, listed in the system prompt,
// loaded by the `skill` tool with their real base folder, their files readable there (never writable), and
// through the /agentchart-skills/ paths older logs used.
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assertSameLog, createAgentSystem } from '../../src/index.ts';
import { scripted } from '../../src/providers/scripted.ts';
import { replaySession } from '../../src/replay/replay-session.ts';
import { memoryStore } from '../../src/session/memory-store.ts';
import { codingTools } from '../../src/tools/coding-tools.ts';
import { counterIds, tickingClock } from '../support/crash-kit.ts';
import { fieldsOf } from '../support/log-fields.ts';

const skillFile = (name: string, description: string, body = 'Do the thing.') =>
  `---\nname: ${name}\ndescription: ${description}\n---\n${body}\n`;

describe('skills in an agent', () => {
  let workspace: string;
  let home: string;
  beforeEach(async () => {
    workspace = await mkdtemp(join(tmpdir(), 'agentchart-skills-'));
    home = await mkdtemp(join(tmpdir(), 'agentchart-skills-home-'));
  });
  afterEach(async () => {
    await rm(workspace, { recursive: true, force: true });
    await rm(home, { recursive: true, force: true });
  });

  const addSkill = async (root: string, folder: string, text: string, files: Record<string, string> = {}) => {
    const dir = join(root, folder);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'SKILL.md'), text);
    for (const [name, content] of Object.entries(files)) {
      await mkdir(join(dir, name, '..'), { recursive: true });
      await writeFile(join(dir, name), content);
    }
    return dir;
  };

  it('finds skills in the user folders (HOME) and the workspace, skips what it cannot read, lists them and loads one', async () => {
    const release = await addSkill(
      join(workspace, '.agentchart', 'skills'),
      'release',
      skillFile('release', 'Cuts a release.'),
      {
        'checklist.md': '1. bump\n2. tag\n',
        'scripts/tag.sh': 'git tag "$1"\n',
        '.hidden': 'no',
      },
    );
    await addSkill(join(workspace, '.claude', 'skills'), 'review', skillFile('review', 'Reviews a diff.'));
    // Claude Code takes these: front matter is optional, and the folder names the skill.
    await addSkill(join(workspace, '.claude', 'skills'), 'plain', '# Plain\n\nNo front matter at all.\n');
    await addSkill(
      join(workspace, '.claude', 'skills'),
      'misnamed',
      skillFile('other', 'Named by its folder.'),
    );
    await addSkill(join(workspace, '.claude', 'skills'), 'broken', '---\n- a list\n---\nbody\n');
    await addSkill(
      join(workspace, '.claude', 'skills'),
      'deploy',
      '---\ndescription: Deploys.\ndisable-model-invocation: yes\n---\nDeploy.\n',
    );
    await addSkill(join(workspace, '.claude', 'skills'), 'notes', skillFile('notes', 'The project one.'));
    await addSkill(join(home, '.agentchart', 'skills'), 'notes', skillFile('notes', 'Keeps notes.'));
    await addSkill(join(home, '.claude', 'skills'), 'draft', skillFile('draft', 'Drafts text.'));
    const model = scripted([
      { toolCalls: [{ id: 's1', name: 'skill', input: { name: 'release' } }] },
      {
        toolCalls: [
          { id: 'r1', name: 'read_file', input: { path: join(release, 'checklist.md') } },
          { id: 'r2', name: 'read_file', input: { path: '/agentchart-skills/release/checklist.md' } },
          { id: 'w1', name: 'write_file', input: { path: join(release, 'checklist.md'), content: 'x' } },
          {
            id: 'w2',
            name: 'write_file',
            input: { path: '/agentchart-skills/release/checklist.md', content: 'x' },
          },
          {
            id: 'e1',
            name: 'edit_file',
            input: { path: '.agentchart/skills/release/checklist.md', old_string: 'bump', new_string: 'x' },
          },
          { id: 'r3', name: 'read_file', input: { path: '/agentchart-skills/release/../review/SKILL.md' } },
          { id: 'l1', name: 'list_dir', input: { path: release } },
          { id: 's2', name: 'skill', input: { name: 'nope' } },
        ],
      },
      { text: 'Released.' },
    ]);
    const previousHome = process.env.HOME;
    process.env.HOME = home;
    let system: ReturnType<typeof createAgentSystem>;
    try {
      system = createAgentSystem({
        model,
        tools: codingTools(),
        cwd: workspace,
        projectInstructions: false,
        permissionMode: 'bypass',
        skills: true,
      });
    } finally {
      process.env.HOME = previousHome;
    }
    const agent = await system.createAgent({ id: 'a', instructions: 'Be brief.' });
    await agent.run('Cut a release');
    const config = agent.log()[0]!.data.config as Record<string, unknown>;
    expect(
      (config.skills as { name: string; description: string }[]).map((s) => [s.name, s.description]),
    ).toEqual([
      ['draft', 'Drafts text.'],
      ['notes', 'Keeps notes.'],
      ['misnamed', 'Named by its folder.'],
      ['plain', '# Plain'],
      ['review', 'Reviews a diff.'],
      ['release', 'Cuts a release.'],
    ]);
    expect(config.skillsSkipped).toEqual([
      {
        file: join(workspace, '.claude', 'skills', 'broken', 'SKILL.md'),
        problem: 'front matter line 2 is not "key: value": - a list',
      },
      {
        file: join(workspace, '.claude', 'skills', 'deploy', 'SKILL.md'),
        problem:
          'its front matter says disable-model-invocation (only a person may start it, with a /command)',
      },
      {
        file: join(workspace, '.claude', 'skills', 'notes', 'SKILL.md'),
        problem: 'a skill named "notes" was found first',
      },
    ]);
    const request = model.requests[0]!;
    expect(request.system).toBe(
      'Be brief.\n\n# Skills\nThese skills hold instructions and files for particular tasks. When a task ' +
        'matches a description, load the skill with the skill tool before you start, and follow it.\n' +
        '- draft: Drafts text.\n- notes: Keeps notes.\n- misnamed: Named by its folder.\n- plain: # Plain\n' +
        '- review: Reviews a diff.\n- release: Cuts a release.',
    );
    expect(request.tools.map((tool) => tool.name)).toContain('skill');
    const results = fieldsOf(agent.log(), 'tool.result', 'callId', 'outcome', 'content');
    const readOnly = expect.stringContaining(`is in the folder of a skill (${release}), which is read-only`);
    expect(results).toEqual([
      [
        's1',
        'ok',
        `Base directory for this skill: ${release}\n\nDo the thing.\n\nOther files in the skill folder, ` +
          'relative to its base directory:\n- checklist.md\n- scripts/tag.sh',
      ],
      ['r1', 'ok', expect.stringContaining('1\t1. bump')],
      ['r2', 'ok', expect.stringContaining('1\t1. bump')],
      ['w1', 'error', readOnly],
      ['w2', 'error', expect.stringContaining('outside the workspace')],
      ['e1', 'error', readOnly],
      ['r3', 'error', expect.stringContaining('is not the path of a file in a skill folder')],
      ['l1', 'ok', '.hidden\nSKILL.md\nchecklist.md\nscripts/'],
      [
        's2',
        'error',
        'There is no skill named "nope". Skills: draft, notes, misnamed, plain, review, release.',
      ],
    ]);
    expect(await readFile(join(release, 'checklist.md'), 'utf8')).toBe('1. bump\n2. tag\n');
    await system.dispose();
  });

  it('a link in a skill folder reaches nothing outside it', async () => {
    const dir = await addSkill(join(home, 'skills'), 'leaky', skillFile('leaky', 'Has a link.'));
    await writeFile(join(home, 'secret.txt'), 'secret');
    await symlink(join(home, 'secret.txt'), join(dir, 'link.txt'));
    const model = scripted([
      { toolCalls: [{ id: 'r1', name: 'read_file', input: { path: '/agentchart-skills/leaky/link.txt' } }] },
      { text: 'ok' },
    ]);
    const system = createAgentSystem({
      model,
      tools: codingTools(),
      approve: 'deny',
      cwd: workspace,
      projectInstructions: false,
      skills: { folders: [join(home, 'skills')] },
    });
    const agent = await system.createAgent({ id: 'a' });
    await agent.run('go');
    const result = agent.log().find((event) => event.type === 'tool.result')!;
    expect(result.data).toMatchObject({ outcome: 'error' });
    expect(String(result.data.content)).toContain("leads outside the skill's folder through a symbolic link");
    await system.dispose();
  });

  it('resume keeps the recorded catalogue, and a replay with a skill load matches byte for byte', async () => {
    await addSkill(
      join(workspace, '.agentchart', 'skills'),
      'release',
      skillFile('release', 'Cuts a release.'),
      {
        'checklist.md': 'bump\n',
      },
    );
    const store = memoryStore();
    const options = {
      tools: codingTools(),
      approve: 'deny',
      cwd: workspace,
      store,
      ids: counterIds(),
      clock: tickingClock(),
      projectInstructions: false,
      skills: true,
    } as const;
    const model = scripted([
      { toolCalls: [{ id: 's1', name: 'skill', input: { name: 'release' } }] },
      {
        toolCalls: [
          { id: 'r1', name: 'read_file', input: { path: '/agentchart-skills/release/checklist.md' } },
        ],
      },
      { text: 'Done.' },
    ]);
    const system = createAgentSystem({ ...options, model });
    const agent = await system.createAgent({ id: 'a' });
    await agent.run('Cut a release');
    const recorded = agent.log();
    await system.dispose();

    // A skill added later is not seen by the resumed session: its prompt and catalogue are the recorded ones.
    await addSkill(join(workspace, '.agentchart', 'skills'), 'late', skillFile('late', 'Came later.'));
    const again = scripted([
      { toolCalls: [{ id: 's2', name: 'skill', input: { name: 'release' } }] },
      { text: 'ok' },
    ]);
    const resumedSystem = createAgentSystem({ ...options, model: again });
    const resumed = await resumedSystem.resumeAgent('a');
    await resumed.run('Again');
    expect(again.requests[0]!.system).toBe(model.requests[0]!.system);
    expect(again.requests[0]!.system).not.toContain('late');
    expect(
      resumed.log().find((event) => event.type === 'tool.result' && event.data.callId === 's2')?.data,
    ).toMatchObject({
      outcome: 'ok',
      content: expect.stringContaining('Base directory for this skill: '),
    });
    await resumedSystem.dispose();

    const replayed = await replaySession(recorded, { setup: { tools: codingTools() } });
    expect(replayed.stopped).toBeUndefined();
    assertSameLog(recorded, replayed.events);
  });
});
