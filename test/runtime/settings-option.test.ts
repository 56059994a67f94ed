import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod/v4';
import { ConfigError } from '../../src/errors/config-error.ts';
import { createAgentSystem, defineTool } from '../../src/index.ts';
import { scripted } from '../../src/providers/scripted.ts';

const write = defineTool({
  name: 'save',
  description: 'writes',
  access: 'write',
  input: z.object({ path: z.string() }),
  run: async () => 'saved',
});

describe('createAgentSystem({ settings })', () => {
  let workspace: string;
  beforeEach(async () => {
    workspace = await mkdtemp(join(tmpdir(), 'agentchart-settings-option-'));
    await mkdir(join(workspace, '.agentchart'));
  });
  afterEach(() => rm(workspace, { recursive: true, force: true }));

  const settingsAt = async (name: string, value: unknown) => {
    const file = join(workspace, name);
    await writeFile(file, typeof value === 'string' ? value : JSON.stringify(value));
    return file;
  };

  it('reads no settings file unless asked', async () => {
    await settingsAt('.agentchart/settings.json', { permissions: { defaultMode: 'plan' } });
    const system = createAgentSystem({ model: scripted([]), cwd: workspace, projectInstructions: false });
    expect(system.settings).toBeUndefined();
    const agent = await system.createAgent({ id: 'a' });
    expect(agent.log()[0]!.data.config).toMatchObject({ permissionMode: 'default' });
    await system.dispose();
  });

  it("runs a named file's command hooks before the host's own; the workspace file's only count as untrusted", async () => {
    // The settings hook denies writes to secret/; the host's hook, asked after it, records what reached it.
    await settingsAt(
      'guard.mjs',
      [
        "import { readFileSync } from 'node:fs';",
        "const { tool_input } = JSON.parse(readFileSync(0, 'utf8'));",
        "if (tool_input.path.startsWith('secret/')) { process.stderr.write('no secrets'); process.exit(2); }",
      ].join('\n'),
    );
    const hookSettings = {
      hooks: { PreToolUse: [{ matcher: 'save', hooks: [{ type: 'command', command: 'node guard.mjs' }] }] },
    };
    await settingsAt('team.json', hookSettings);
    const seen: string[] = [];
    const system = createAgentSystem({
      model: scripted([
        { toolCalls: [{ id: 'c1', name: 'save', input: { path: 'secret/key' } }] },
        { toolCalls: [{ id: 'c2', name: 'save', input: { path: 'notes.txt' } }] },
        { text: 'done' },
      ]),
      tools: [write],
      cwd: workspace,
      projectInstructions: false,
      permissionMode: 'bypass',
      settings: 'team.json',
      hooks: { preTool: [({ toolInput }) => void seen.push((toolInput as { path: string }).path)] },
    });
    const agent = await system.createAgent({ id: 'a' });
    await agent.run('go');
    const decided = agent.log().filter((event) => event.type === 'hook.decided');
    expect(decided.map((event) => [event.data.hook, event.data.outcome, event.data.reason])).toEqual([
      ['node guard.mjs', 'deny', 'no secrets'],
      ['node guard.mjs', 'pass', undefined],
      [expect.any(String), 'pass', undefined],
    ]);
    expect(seen).toEqual(['notes.txt']);
    await system.dispose();

    await settingsAt('.agentchart/settings.json', hookSettings);
    const fromWorkspace = createAgentSystem({ model: scripted([]), cwd: workspace, settings: 'workspace' });
    expect(fromWorkspace.settings?.untrustedHooks).toEqual(['PreToolUse']);
    expect(fromWorkspace.settings?.hooks).toEqual({});
    await fromWorkspace.dispose();
  });

  it("takes defaultMode and rules from a named file; the host's own options win, deny rules of both apply", async () => {
    const file = await settingsAt('team.json', {
      permissions: { defaultMode: 'accept-edits', deny: ['save(secret/**)'], allow: ['save'] },
    });
    const model = scripted([
      { toolCalls: [{ id: 'c1', name: 'save', input: { path: 'secret/key' } }] },
      { toolCalls: [{ id: 'c2', name: 'save', input: { path: 'notes.txt' } }] },
      { text: 'done' },
    ]);
    const system = createAgentSystem({
      model,
      tools: [write],
      cwd: workspace,
      projectInstructions: false,
      settings: 'team.json',
      permissions: { deny: ['save(notes.txt)'] },
    });
    expect(system.settings?.files).toEqual([file]);
    const agent = await system.createAgent({ id: 'a' });
    expect(agent.log()[0]!.data.config).toMatchObject({ permissionMode: 'accept-edits' });
    await agent.run('go');
    const reasons = agent
      .log()
      .filter((event) => event.type === 'approval.decided')
      .map((event) => event.data.reason);
    expect(reasons).toEqual(['denied by rule save(secret/**)', 'denied by rule save(notes.txt)']);
    await system.dispose();

    const hostMode = createAgentSystem({
      model: scripted([]),
      tools: [write],
      cwd: workspace,
      projectInstructions: false,
      settings: file,
      permissionMode: 'plan',
      approve: 'deny',
    });
    const planned = await hostMode.createAgent({ id: 'b' });
    expect(planned.log()[0]!.data.config).toMatchObject({ permissionMode: 'plan' });
    await hostMode.dispose();
  });

  it("'workspace' reads the workspace's file (the user's too) and leaves its MCP servers unstarted", async () => {
    await settingsAt('.agentchart/settings.json', {
      permissions: { defaultMode: 'plan' },
      mcpServers: { theirs: { command: 'node' } },
    });
    const system = createAgentSystem({
      model: scripted([]),
      cwd: workspace,
      projectInstructions: false,
      settings: 'workspace',
      // The workspace's plan mode asks the host to accept a plan: nobody does here.
      approve: 'deny',
    });
    expect(system.settings?.permissions.defaultMode).toBe('plan');
    expect(system.settings?.untrustedMcpServers).toEqual(['theirs']);
    expect(system.settings?.mcpServers).toEqual({});
    await system.dispose();
  });

  it('a bad or missing file is a ConfigError naming the file, the field and what is wrong', async () => {
    const make = (settings: string) => () =>
      createAgentSystem({ model: scripted([]), cwd: workspace, settings });
    const typo = await settingsAt('typo.json', { permissions: { alow: ['save'] } });
    expect(make('typo.json')).toThrow(ConfigError);
    expect(make('typo.json')).toThrow(
      `the settings file ${typo} is wrong at permissions: Unrecognized key: "alow"`,
    );
    const badRule = await settingsAt('rule.json', { permissions: { deny: ['save('] } });
    expect(make('rule.json')).toThrow(
      new RegExp(`^the settings file ${badRule} is wrong at permissions\\.deny\\.0: "save\\("`),
    );
    await settingsAt('json.json', '{ nope');
    expect(make('json.json')).toThrow(/settings file .*json\.json is not valid JSON/);
    expect(make('absent.json')).toThrow(/cannot read the settings file .*absent\.json: ENOENT/);
    expect(() => createAgentSystem({ model: scripted([]), settings: 5 as never })).toThrow(
      /createAgentSystem: settings must be "workspace" or the path of a settings file/,
    );
  });
});
