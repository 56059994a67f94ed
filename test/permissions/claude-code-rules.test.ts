// Permission rules written in Claude Code's tool names (`Bash(...)`, `Read(./.env)`, `Edit(./tsconfig.json)`)
// mean agentchart's tools: a deny rule copied from a Claude Code settings file denies, it is never inert.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { codingTools, createAgentSystem } from '../../src/index.ts';
import { decidePermission } from '../../src/permissions/decide.ts';
import { scripted } from '../../src/providers/scripted.ts';
import { fieldsOf } from '../support/log-fields.ts';

const fixture = new URL(
  '../fixtures/claude-code/npelloux__living-architecture/settings.json',
  import.meta.url,
);

describe("Claude Code's tool names in permission rules", () => {
  let workspace: string;
  beforeEach(async () => {
    workspace = await mkdtemp(join(tmpdir(), 'agentchart-claude-rules-'));
    await mkdir(join(workspace, 'scripts'));
    await writeFile(join(workspace, '.env'), 'API_KEY=secret\n');
    await writeFile(join(workspace, 'tsconfig.json'), '{}\n');
    await writeFile(join(workspace, 'scripts/submit-pr.sh'), 'echo submitted\n', { mode: 0o755 });
  });
  afterEach(() => rm(workspace, { recursive: true, force: true }));

  it("applies a published settings file's Read, Edit and Bash rules to read_file, edit_file, write_file and bash", async () => {
    // The file's other keys (`enabledPlugins`, `automaticCodeReview`) are Claude Code's own and refused by
    // agentchart's settings schema, so its `permissions` are taken as published, plus one Bash deny rule.
    const published = JSON.parse(await readFile(fixture, 'utf8')) as {
      permissions: { allow: string[]; deny: string[] };
    };
    const permissions = { ...published.permissions, deny: [...published.permissions.deny, 'Bash(rm:*)'] };
    await writeFile(join(workspace, 'team.json'), JSON.stringify({ permissions }));
    const system = createAgentSystem({
      model: scripted([
        { toolCalls: [{ id: 'c1', name: 'read_file', input: { path: '.env' } }] },
        {
          toolCalls: [
            {
              id: 'c2',
              name: 'edit_file',
              input: { path: './tsconfig.json', old_string: '{}', new_string: '[]' },
            },
          ],
        },
        { toolCalls: [{ id: 'c3', name: 'write_file', input: { path: 'tsconfig.json', content: 'x' } }] },
        { toolCalls: [{ id: 'c4', name: 'bash', input: { command: 'ls && rm -rf build' } }] },
        { toolCalls: [{ id: 'c5', name: 'bash', input: { command: './scripts/submit-pr.sh --draft' } }] },
        { text: 'done' },
      ]),
      tools: codingTools(),
      cwd: workspace,
      projectInstructions: false,
      settings: 'team.json',
      // Every call here is decided by a rule: nobody is asked.
      approve: 'deny',
    });
    const agent = await system.createAgent({ id: 'a' });
    await agent.run('go');
    const decisions = fieldsOf(agent.log(), 'approval.decided', 'outcome', 'reason');
    expect(decisions).toEqual([
      ['deny', 'denied by rule Read(./.env)'],
      ['deny', 'denied by rule Edit(./tsconfig.json)'],
      ['deny', 'denied by rule Edit(./tsconfig.json)'],
      ['deny', 'denied by rule Bash(rm:*)'],
      ['allow', 'allowed by rule Bash(./scripts/submit-pr.sh:*)'],
    ]);
    expect(await readFile(join(workspace, 'tsconfig.json'), 'utf8')).toBe('{}\n');
    await system.dispose();
  });

  it('reads Read and Edit patterns as Claude Code does: a bare name at any depth, a leading / at the root', () => {
    const decide = (deny: string, name: string, path: string) =>
      decidePermission({
        mode: 'bypass',
        deny: [deny],
        tool: { name, access: 'read' },
        input: { path },
        cwd: '/w',
      }).decision;
    expect([
      decide('Read(.env)', 'read_file', 'config/.env'),
      decide('Read(.env)', 'grep', '/w/.env'),
      decide('Read(/secrets/**)', 'list_dir', 'secrets/keys'),
      decide('Read(./.env.*)', 'glob', '.env.local'),
      decide('Edit(./.husky/*)', 'write_file', '.husky/pre-commit'),
      decide('Write(./notes.md)', 'edit_file', 'notes.md'),
      decide('MultiEdit', 'edit_file', 'a.ts'),
      decide('Task', 'task', '.'),
      decide('Agent', 'task', '.'),
    ]).toEqual(['deny', 'deny', 'deny', 'deny', 'deny', 'allow', 'deny', 'deny', 'deny']);
    // agentchart's own names keep their anchoring: `read_file(.env)` is the workspace root's `.env` only.
    expect(decide('read_file(.env)', 'read_file', 'config/.env')).toBe('allow');
  });
});
