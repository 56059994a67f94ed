// Claude Code's skills as they are: the real webapp-testing skill of anthropics/skills loaded by a scripted
// model, which learns the base folder from the skill result and runs the bundled script with the real
// python3; the folder is read-only, also to a subagent; names and descriptions Claude Code accepts are taken.
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAgentSystem } from '../../src/index.ts';
import { scripted } from '../../src/providers/scripted.ts';
import type { Provider } from '../../src/providers/types.ts';
import { codingTools } from '../../src/tools/coding-tools.ts';
import type { AnyTool } from '../../src/tools/define-tool.ts';
import { taskTool } from '../../src/tools/task.ts';
import { baseFolder, installSkill, loadThenRun, results, scriptHelp } from '../support/skill-kit.ts';
import { useTempFolders } from '../support/temp-folders.ts';

const folder = useTempFolders('agentchart-cc');

/** A bypass-mode system with the user's skills under `<root>/home`, whose approver denies and records. */
function denyingSystem(model: Provider, tools: AnyTool[], workspace: string, root: string) {
  const asked: string[] = [];
  const system = createAgentSystem({
    model,
    tools,
    cwd: workspace,
    projectInstructions: false,
    permissionMode: 'bypass',
    skills: { folders: [join(root, 'home', '.claude', 'skills')] },
    approve: async ({ callId }) => {
      asked.push(callId);
      return 'deny';
    },
  });
  return { system, asked };
}

describe('the webapp-testing skill of anthropics/skills', () => {
  it('loads with its base folder, and its bundled script runs through bash from there', async () => {
    const root = await folder('skills');
    const workspace = join(root, 'ws');
    const skill = await installSkill(join(workspace, '.claude', 'skills'));
    const model = scripted(loadThenRun);
    const system = createAgentSystem({
      model,
      tools: codingTools(),
      cwd: workspace,
      projectInstructions: false,
      permissionMode: 'bypass',
      skills: { folders: [join(workspace, '.claude', 'skills')] },
    });
    const agent = await system.createAgent({ id: 'a' });
    await agent.run('How do I test my web app with a dev server?');
    expect(model.requests[0]!.system).toContain(
      '- webapp-testing: Toolkit for interacting with and testing local web applications using Playwright.',
    );
    const help = scriptHelp();
    expect(help).toContain('Run command with one or more servers');
    const [load, ...rest] = results(agent.log());
    expect(load![2].split('\n').slice(0, 4)).toEqual([
      `Base directory for this skill: ${skill}`,
      '',
      '# Web Application Testing',
      '',
    ]);
    expect(load![2]).toContain(
      'Other files in the skill folder, relative to its base directory:\n- LICENSE.txt\n' +
        '- examples/console_logging.py\n- examples/element_discovery.py\n- examples/static_html_automation.py\n' +
        '- scripts/with_server.py',
    );
    expect(rest).toEqual([
      ['help', 'ok', `${help}[exit code 0]`],
      ['from', 'ok', `${help}[exit code 0]`],
      ['where', 'ok', `${skill}\n[exit code 0]`],
      [
        'read',
        'ok',
        '     1\t---\n     2\tname: webapp-testing\n     3\tdescription: Toolkit for interacting with and testing ' +
          'local web applications using Playwright. Supports verifying frontend functionality, debugging UI ' +
          'behavior, capturing browser screenshots, and viewing browser logs.\n\n' +
          '[Showing lines 1-3 of 96. To read further, call read_file with offset 4.]',
      ],
    ]);
    await system.dispose();
  });

  it('is read-only: file tools refuse it and a bash line writing there asks, even in bypass mode', async () => {
    const root = await folder('skills');
    const workspace = join(root, 'ws');
    await mkdir(workspace, { recursive: true });
    // A personal skill, outside the workspace.
    const skill = await installSkill(join(root, 'home', '.claude', 'skills'));
    const before = await readdir(skill, { recursive: true });
    const model = scripted([
      { toolCalls: [{ id: 'load', name: 'skill', input: { name: 'webapp-testing' } }] },
      (request) => {
        const base = baseFolder(request);
        const bash = (id: string, command: string) => ({ id, name: 'bash', input: { command } });
        return {
          toolCalls: [
            { id: 'write', name: 'write_file', input: { path: `${base}/notes.md`, content: 'x' } },
            {
              id: 'edit',
              name: 'edit_file',
              input: { path: `${base}/SKILL.md`, old_string: 'Playwright', new_string: 'x' },
            },
            bash('redirect', `echo hi > ${base}/notes.md`),
            bash('remove', `rm -rf ${base}/scripts`),
            bash('relative', `cd ${base} && touch notes.md`),
            bash('sed', `sed -i s/a/b/ ${base}/SKILL.md`),
            bash('copy-out', `cp ${base}/SKILL.md skill-copy.md && echo copied`),
          ],
        };
      },
      { text: 'done' },
    ]);
    const { system, asked } = denyingSystem(model, codingTools(), workspace, root);
    const agent = await system.createAgent({ id: 'a' });
    await agent.run('Change the skill');
    expect(asked).toEqual(['redirect', 'remove', 'relative', 'sed']);
    const readOnly = `is in the folder of a skill (${skill}), which is read-only`;
    expect(
      results(agent.log())
        .slice(1)
        .map(([id, outcome, content]) => [id, outcome, content.includes(readOnly) ? 'read-only' : content]),
    ).toEqual([
      ['write', 'error', 'read-only'],
      ['edit', 'error', 'read-only'],
      ['redirect', 'denied', expect.any(String)],
      ['remove', 'denied', expect.any(String)],
      ['relative', 'denied', expect.any(String)],
      ['sed', 'denied', expect.any(String)],
      ['copy-out', 'ok', 'copied\n[exit code 0]'],
    ]);
    expect(await readdir(skill, { recursive: true })).toEqual(before);
    await system.dispose();
  });

  it('stays read-only to a subagent the agent starts', async () => {
    const root = await folder('skills');
    const workspace = join(root, 'ws');
    await mkdir(workspace, { recursive: true });
    const skill = await installSkill(join(root, 'home', '.claude', 'skills'));
    const model = scripted([
      { toolCalls: [{ id: 'load', name: 'skill', input: { name: 'webapp-testing' } }] },
      (request) => ({
        toolCalls: [
          {
            id: 'delegate',
            name: 'task',
            input: { description: 'Tidy the skill', prompt: `Remove ${baseFolder(request)}/examples.` },
          },
        ],
      }),
      { toolCalls: [{ id: 'child-rm', name: 'bash', input: { command: `rm -rf ${skill}/examples` } }] },
      { text: 'I was not allowed to.' },
      { text: 'The subagent could not remove it.' },
    ]);
    const { system, asked } = denyingSystem(model, [...codingTools(), taskTool()], workspace, root);
    const agent = await system.createAgent({ id: 'a' });
    await agent.run('Tidy up');
    expect(asked).toEqual(['child-rm']);
    expect(await readdir(join(skill, 'examples'))).toHaveLength(3);
    await system.dispose();
  });
});

describe('names and descriptions Claude Code accepts', () => {
  it('takes an uppercase folder name, a label name and a long description, and cuts only the listing', async () => {
    const root = await folder('skills');
    const skills = join(root, 'skills');
    const long = `Fills PDF forms. ${'Use it for any PDF form work, also scanned ones. '.repeat(40)}`.trim();
    await mkdir(join(skills, 'PDF-Tools'), { recursive: true });
    await writeFile(
      join(skills, 'PDF-Tools', 'SKILL.md'),
      `---\nname: PDF Tools\ndescription: ${long}\nwhen_to_use: When a PDF is mentioned.\n---\nUse $ARGUMENTS.\n`,
    );
    await mkdir(join(skills, 'no_description'), { recursive: true });
    await writeFile(
      join(skills, 'no_description', 'SKILL.md'),
      '---\nlicense: MIT\n---\n\nFirst paragraph\nof the body.\n\nSecond paragraph.\n',
    );
    const model = scripted([
      { toolCalls: [{ id: 'load', name: 'skill', input: { name: 'PDF-Tools', args: 'form.pdf' } }] },
      { text: 'ok' },
    ]);
    const system = createAgentSystem({
      model,
      tools: codingTools(),
      approve: 'deny',
      cwd: root,
      projectInstructions: false,
      skills: { folders: [skills] },
    });
    const agent = await system.createAgent({ id: 'a' });
    await agent.run('Fill the form');
    const config = agent.log()[0]!.data.config as Record<string, unknown>;
    expect(long.length).toBeGreaterThan(1536);
    expect(config.skillsSkipped).toBeUndefined();
    expect(config.skills).toEqual([
      {
        name: 'PDF-Tools',
        description: long,
        whenToUse: 'When a PDF is mentioned.',
        folder: join(skills, 'PDF-Tools'),
      },
      {
        name: 'no_description',
        description: 'First paragraph of the body.',
        folder: join(skills, 'no_description'),
      },
    ]);
    const listing = model.requests[0]!.system.split('\n').filter((line) => line.startsWith('- '));
    expect(listing).toEqual([
      `- PDF-Tools: ${`${long} When a PDF is mentioned.`.slice(0, 1535)}…`,
      '- no_description: First paragraph of the body.',
    ]);
    expect(results(agent.log())).toEqual([
      [
        'load',
        'ok',
        `Base directory for this skill: ${join(skills, 'PDF-Tools')}\n\nUse form.pdf.\n\nThe skill folder holds no other files.`,
      ],
    ]);
    await system.dispose();
  });
});
