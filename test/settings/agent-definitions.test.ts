// Agent definition files: found in the workspace's `.agentchart/agents` and `.claude/agents`, then the
// user's, a name found first winning; real Claude Code sub-agent files read as they are; every file that
// cannot be used skipped with its reason.
import { mkdir, readFile, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  agentCatalogueText,
  agentDefinitionFolders,
  discoverAgentDefinitions,
} from '../../src/settings/agent-definitions.ts';
import {
  copyRealDefinition,
  definitionText,
  realDefinitions,
  writeDefinition,
} from '../support/agent-definition-kit.ts';
import { useTempFolders } from '../support/temp-folders.ts';

/** The body of a definition file: what follows its front matter, trimmed. */
async function bodyOf(file: string): Promise<string> {
  const text = await readFile(file, 'utf8');
  return text.slice(text.indexOf('\n---\n') + 5).trim();
}

describe('agent definitions from files', () => {
  const temp = useTempFolders('agentchart-definitions');

  it("takes the workspace's folders before the user's, agentchart's before Claude Code's", async () => {
    const root = await temp('case');
    const workspace = join(root, 'ws');
    const home = join(root, 'home');
    const folders = agentDefinitionFolders(workspace, { HOME: home });
    expect(folders).toEqual([
      join(workspace, '.agentchart', 'agents'),
      join(workspace, '.claude', 'agents'),
      join(home, '.agentchart', 'agents'),
      join(home, '.claude', 'agents'),
    ]);
    const ours = await writeDefinition(
      folders[0]!,
      'reviewer.md',
      definitionText({ name: 'reviewer', description: 'Ours.' }, 'Review it our way.\n'),
    );
    const theirs = await writeDefinition(
      folders[1]!,
      'reviewer.md',
      definitionText({ name: 'reviewer', description: 'Theirs.' }, 'Review it.\n'),
    );
    const reviewer = await copyRealDefinition(folders[1]!, 'code-reviewer.md');
    const homeReviewer = await writeDefinition(
      folders[2]!,
      'code-reviewer.md',
      definitionText({ name: 'code-reviewer', description: 'The home one.' }, 'Body.\n'),
    );
    const security = await copyRealDefinition(folders[3]!, 'security-expert.md');
    const found = await discoverAgentDefinitions(folders);
    expect(found.definitions).toEqual([
      { name: 'reviewer', description: 'Ours.', instructions: 'Review it our way.', file: ours },
      {
        name: 'code-reviewer',
        description:
          'Reviews code changes for correctness, regressions, integration risk, and missing verification.',
        instructions: await bodyOf(reviewer),
        tools: ['read_file', 'glob', 'grep', 'bash'],
        model: 'sonnet',
        file: reviewer,
        notes: ['model "sonnet" is not one of the system\'s models: the parent\'s model is used'],
      },
      {
        name: 'security-expert',
        description:
          'Elite security analysis - finds vulnerabilities, validates security patterns, and ensures defense in depth',
        instructions: await bodyOf(security),
        tools: ['glob', 'grep', 'read_file'],
        model: 'sonnet',
        file: security,
        notes: [
          'tools: WebFetch is left out (agentchart has no such tool)',
          'tools: TodoWrite is left out (agentchart has no such tool)',
          'tools: WebSearch is left out (agentchart has no such tool)',
          'model "sonnet" is not one of the system\'s models: the parent\'s model is used',
        ],
      },
    ]);
    expect(found.skipped).toEqual([
      { file: theirs, problem: 'an agent definition named "reviewer" was found first' },
      { file: homeReviewer, problem: 'an agent definition named "code-reviewer" was found first' },
    ]);
    // A model the system has by name is no note.
    const withModels = await discoverAgentDefinitions([realDefinitions], { models: ['sonnet'] });
    expect(withModels.definitions.map((definition) => definition.notes ?? [])).toEqual([
      [],
      [
        'tools: WebFetch is left out (agentchart has no such tool)',
        'tools: TodoWrite is left out (agentchart has no such tool)',
        'tools: WebSearch is left out (agentchart has no such tool)',
      ],
    ]);
  });

  it('skips every file that cannot be used, with the reason', async () => {
    const folder = join(await temp('case'), 'agents');
    const cases: [string, string, string][] = [
      ['a-no-front.md', 'Just a prompt.\n', 'it has no front matter ("---" lines with name and description)'],
      [
        'b-bad-yaml.md',
        '---\nname: x\ndescription: "open\n---\n',
        'front matter key "description": a double-quoted value is not closed',
      ],
      [
        'c-name.md',
        definitionText({ name: 'Code_Reviewer', description: 'd' }, ''),
        'its name must be lowercase letters, digits and hyphens, got "Code_Reviewer"',
      ],
      ['d-no-description.md', definitionText({ name: 'quiet' }, 'Body'), 'it has no description'],
      [
        'e-typo.md',
        definitionText({ name: 'typo', description: 'd', tools: 'Raed, Grep' }, ''),
        'tools names a tool agentchart does not know: Raed (did you mean Read?)',
      ],
      [
        'f-mode.md',
        definitionText({ name: 'mode', description: 'd', permissionMode: 'yolo' }, ''),
        'permissionMode must be one of default, plan, acceptEdits, accept-edits, bypassPermissions, bypass, dontAsk, got "yolo"',
      ],
      [
        'g-steps.md',
        definitionText({ name: 'steps', description: 'd', maxSteps: '0' }, ''),
        'maxSteps must be a whole number above zero, got "0"',
      ],
      [
        'h-isolation.md',
        definitionText({ name: 'iso', description: 'd', isolation: 'container' }, ''),
        'isolation must be worktree or none, got "container"',
      ],
      [
        'i-output.md',
        definitionText({ name: 'typed', description: 'd', output: 'missing.json' }, ''),
        `its output file ${join(folder, 'missing.json')} does not exist`,
      ],
      [
        'j-not-object.md',
        definitionText({ name: 'typed', description: 'd', output: 'list.json' }, ''),
        `its output file ${join(folder, 'list.json')}: the agent definition: output must be a Standard Schema (a zod 4 schema such as z.object({...}), or valibot, arktype…) or a JSON Schema of an object ({ type: "object", ... }), got an object`,
      ],
    ];
    for (const [file, text] of cases) await writeDefinition(folder, file, text);
    await writeDefinition(folder, 'list.json', '{"type":"array"}');
    // A folder named like a definition is not read at all; a link to nothing is said.
    await mkdir(join(folder, 'k-folder.md'));
    await symlink(join(folder, 'nowhere.md'), join(folder, 'l-dangling.md'));
    const found = await discoverAgentDefinitions([folder], { reserved: ['reserved'] });
    expect(found.definitions).toEqual([]);
    expect(found.skipped.map(({ file, problem }) => [file.slice(folder.length + 1), problem])).toEqual([
      ...cases.map(([file, , problem]) => [file, problem]),
      [
        'l-dangling.md',
        `it cannot be read: ENOENT: no such file or directory, stat '${join(folder, 'l-dangling.md')}'`,
      ],
    ]);
  });

  it("reads the list forms, Claude Code's modes, agentchart's fields, and says what it does not apply", async () => {
    const folder = join(await temp('case'), 'agents');
    await writeDefinition(
      join(folder, 'schemas'),
      'verdict.json',
      '{"type":"object","properties":{"ok":{"type":"boolean"}}}',
    );
    const file = await writeDefinition(
      folder,
      'checker.md',
      [
        '---',
        'name: checker',
        'description: Checks a change',
        '  and says whether it holds.',
        'tools:',
        '  - Grep',
        '  - Agent(reviewer)',
        '  - mcp__github__get_issue',
        '  - deploy',
        'disallowedTools: [Read, Agent(planner)]',
        'permissionMode: dontAsk',
        'maxTurns: 7',
        'isolation: worktree',
        'output: schemas/verdict.json',
        'skills: review',
        'color: blue',
        '---',
        'Check it.',
        '',
      ].join('\n'),
    );
    const reserved = await writeDefinition(
      folder,
      'worker.md',
      definitionText({ name: 'worker', description: 'd' }, ''),
    );
    const found = await discoverAgentDefinitions([folder], { knownTools: ['deploy'], reserved: ['worker'] });
    expect(found.definitions).toEqual([
      {
        name: 'checker',
        description: 'Checks a change and says whether it holds.',
        instructions: 'Check it.',
        tools: ['grep', 'mcp__github__get_issue', 'deploy'],
        disallowedTools: ['read_file', 'grep', 'glob', 'list_dir', 'task'],
        permissionMode: 'dont-ask',
        isolation: 'worktree',
        maxSteps: 7,
        output: { type: 'object', properties: { ok: { type: 'boolean' } } },
        file,
        notes: [
          'skills is not applied',
          'tools: Agent(reviewer) is left out (agentchart cannot limit the agent types a child starts)',
          'disallowedTools: Agent(planner) takes task away whole (agentchart cannot take one agent type away)',
        ],
      },
    ]);
    expect(found.skipped).toEqual([
      { file: reserved, problem: 'the host defines an agent type "worker" itself (the host\'s wins)' },
    ]);
    expect(agentCatalogueText(found.definitions)).toBe(
      '# Agent types\n' +
        'When a task matches one of these descriptions, delegate it by giving its name as `agent_type` to the ' +
        'task tool (or spawn_agent): the agent starts with its own instructions and tools.\n' +
        '- checker: Checks a change and says whether it holds.',
    );
    expect(agentCatalogueText([])).toBe('');
  });
});
