// Real Claude Code settings files through the library: what Claude Code documents for each holds here, or
// the file is refused naming the key and why. Test data (read where the repository keeps them, with
// repository, path and commit in docs/claude-code/corpus/PROVENANCE.md):
// - anthropics/claude-code `examples/settings/settings-strict.json` (4936302), `settings-lax.json` (f93f614),
//   `settings-bash-sandbox.json` (43d0eac);
// - getsentry/sentry `.claude/settings.json` (0752373); n8n-io/n8n `.claude/settings.json` (030e633);
// - npelloux/living-architecture `.claude/settings.json` (a7c5e08, also in test/fixtures/claude-code).
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors/config-error.ts';
import { type ApprovalRequest, codingTools, createAgentSystem, type LogEvent } from '../../src/index.ts';
import { scripted } from '../../src/providers/scripted.ts';

const corpus = fileURLToPath(new URL('../../docs/claude-code/corpus/', import.meta.url));
const claudeSettings = {
  strict: join(corpus, 'anthropics__claude-code/examples/settings/settings-strict.json'),
  lax: join(corpus, 'anthropics__claude-code/examples/settings/settings-lax.json'),
  sandbox: join(corpus, 'anthropics__claude-code/examples/settings/settings-bash-sandbox.json'),
  sentry: join(corpus, 'getsentry__sentry/.claude/settings.json'),
  n8n: join(corpus, 'n8n-io__n8n/.claude/settings.json'),
  npelloux: join(corpus, 'npelloux__living-architecture/.claude/settings.json'),
};

const decisions = (log: readonly LogEvent[]) =>
  log.filter((event) => event.type === 'approval.decided').map((event) => event.data.reason);

const bash = (id: string, command: string) => ({ id, name: 'bash', input: { command } });

describe("Claude Code's published settings files", () => {
  let workspace: string;
  beforeEach(async () => {
    workspace = await mkdtemp(join(tmpdir(), 'agentchart-claude-settings-'));
  });
  afterEach(() => rm(workspace, { recursive: true, force: true }));

  it('settings-strict.json: Bash asks even where an allow rule and the mode would allow; unused keys listed', async () => {
    const asked: ApprovalRequest[] = [];
    const system = createAgentSystem({
      model: scripted([{ toolCalls: [bash('c1', 'echo hi')] }, { text: 'done' }]),
      tools: codingTools(),
      cwd: workspace,
      projectInstructions: false,
      settings: claudeSettings.strict,
      permissionMode: 'accept-edits',
      permissions: { allow: ['bash'] },
      approve: async (request) => {
        asked.push(request);
        return 'deny';
      },
    });
    expect(system.settings?.permissions).toEqual({
      allow: [],
      ask: ['Bash'],
      deny: ['WebSearch', 'WebFetch'],
      disableBypassPermissionsMode: true,
    });
    expect(system.settings?.notUsed.map((value) => [value.key, value.why])).toEqual([
      [
        'allowManagedPermissionRulesOnly',
        'takes effect only in managed settings, which agentchart does not read',
      ],
      ['allowManagedHooksOnly', 'takes effect only in managed settings, which agentchart does not read'],
      ['strictKnownMarketplaces', 'takes effect only in managed settings, which agentchart does not read'],
      ['sandbox', 'agentchart has no sandbox (it is not enabled)'],
    ]);
    expect(system.settings?.warnings).toEqual([]);
    const agent = await system.createAgent({ id: 'a' });
    await agent.run('go');
    expect(asked.map((request) => request.input)).toEqual([{ command: 'echo hi' }]);
    expect(decisions(agent.log())).toEqual(['the host denied this call']);
    await system.dispose();
  });

  it('settings-strict.json headless: the ask rule denies bash; disableBypassPermissionsMode refuses bypass', async () => {
    const system = createAgentSystem({
      model: scripted([{ toolCalls: [bash('c1', 'echo hi')] }, { text: 'done' }]),
      tools: codingTools(),
      cwd: workspace,
      projectInstructions: false,
      settings: claudeSettings.strict,
      permissions: { allow: ['Bash(echo:*)'] },
      approve: 'deny',
    });
    const agent = await system.createAgent({ id: 'a' });
    await agent.run('go');
    expect(decisions(agent.log())).toEqual([
      'asks by rule Bash; nobody can approve it in this session (headless), so it was denied',
    ]);
    await system.dispose();
    for (const file of [claudeSettings.strict, claudeSettings.lax])
      expect(() =>
        createAgentSystem({ model: scripted([]), cwd: workspace, settings: file, permissionMode: 'bypass' }),
      ).toThrow(
        `permission mode "bypass" is disabled by permissions.disableBypassPermissionsMode in the settings file ${file}`,
      );
  });

  it('settings-lax.json: a mode switched to bypass later still decides as default mode', async () => {
    const system = createAgentSystem({
      model: scripted([
        { toolCalls: [{ id: 'c1', name: 'write_file', input: { path: 'a.txt', content: 'x' } }] },
        { text: 'done' },
      ]),
      tools: codingTools(),
      cwd: workspace,
      projectInstructions: false,
      settings: claudeSettings.lax,
      approve: 'deny',
    });
    const agent = await system.createAgent({ id: 'a' });
    agent.setPermissionMode('bypass');
    await agent.run('go');
    expect(decisions(agent.log())).toEqual([
      'write access needs approval in default mode (bypass is disabled: permissions.disableBypassPermissionsMode); ' +
        'nobody can approve it in this session (headless), so it was denied',
    ]);
    await system.dispose();
  });

  it('settings-bash-sandbox.json: sandbox.enabled is refused, since bash would run unsandboxed', () => {
    expect(() =>
      createAgentSystem({ model: scripted([]), cwd: workspace, settings: claudeSettings.sandbox }),
    ).toThrow(
      new RegExp(
        `^the settings file ${claudeSettings.sandbox.replaceAll('.', '\\.')} is wrong at sandbox\\.enabled: agentchart does not run bash in a sandbox`,
      ),
    );
  });

  it("sentry's and n8n's files: Bash(...:*) rules allow what they name, unused keys are listed, MCP rules warn", async () => {
    const system = createAgentSystem({
      model: scripted([
        { toolCalls: [bash('c1', 'git status --short'), bash('c2', 'git push origin main')] },
        { text: 'done' },
      ]),
      tools: codingTools(),
      cwd: workspace,
      projectInstructions: false,
      settings: claudeSettings.sentry,
      approve: 'deny',
    });
    expect(system.settings?.notUsed.map((value) => value.key)).toEqual([
      'enableAllProjectMcpServers',
      'includeCoAuthoredBy',
      'enabledMcpjsonServers',
      'permissions.additionalDirectories',
    ]);
    expect(system.settings?.warnings).toEqual([
      `the settings file ${claudeSettings.sentry}: permissions.allow[59] "mcp__sentry__analyze_issue_with_seer" and 8 more like it: no MCP server named sentry is configured (configured: none)`,
    ]);
    const agent = await system.createAgent({ id: 'a' });
    await agent.run('go');
    expect(decisions(agent.log())).toEqual([
      'allowed by rule Bash(git status:*)',
      'exec access needs approval in default mode; nobody can approve it in this session (headless), so it was denied',
    ]);
    await system.dispose();
    const n8n = createAgentSystem({ model: scripted([]), cwd: workspace, settings: claudeSettings.n8n });
    expect(n8n.settings?.permissions.allow).toContain('Bash(pnpm build)');
    expect([n8n.settings?.notUsed, n8n.settings?.warnings]).toEqual([[], []]);
    await n8n.dispose();
  });

  it("npelloux's file: a plugin's own key is refused by name; without it, the deny rules deny", async () => {
    expect(() =>
      createAgentSystem({ model: scripted([]), cwd: workspace, settings: claudeSettings.npelloux }),
    ).toThrow(
      'is wrong at (the top level): Unrecognized key: "automaticCodeReview" (neither agentchart nor Claude Code has it)',
    );
    const published = JSON.parse(await readFile(claudeSettings.npelloux, 'utf8'));
    delete published.automaticCodeReview;
    await writeFile(join(workspace, 'team.json'), JSON.stringify(published));
    await writeFile(join(workspace, '.env'), 'KEY=secret\n');
    const system = createAgentSystem({
      model: scripted([
        { toolCalls: [{ id: 'c1', name: 'read_file', input: { path: '.env' } }] },
        { text: 'no' },
      ]),
      tools: codingTools(),
      cwd: workspace,
      projectInstructions: false,
      settings: 'team.json',
    });
    expect(system.settings?.notUsed.map((value) => value.key)).toEqual(['enabledPlugins']);
    const agent = await system.createAgent({ id: 'a' });
    await agent.run('go');
    expect(decisions(agent.log())).toEqual(['denied by rule Read(./.env)']);
    await system.dispose();
  });

  it("reads the workspace's .claude/settings.json and settings.local.json as the workspace's own file", async () => {
    await mkdir(join(workspace, '.claude'));
    await writeFile(join(workspace, '.claude/settings.json'), await readFile(claudeSettings.strict, 'utf8'));
    await writeFile(
      join(workspace, '.claude/settings.local.json'),
      JSON.stringify({ permissions: { deny: ['Read(./secret.txt)'], allow: ['Write'] } }),
    );
    const system = createAgentSystem({ model: scripted([]), cwd: workspace, settings: 'workspace' });
    expect(system.settings?.files).toEqual([
      join(workspace, '.claude/settings.json'),
      join(workspace, '.claude/settings.local.json'),
    ]);
    // Untrusted, as the workspace's file is: deny and ask rules apply, the allow rule is held back.
    expect(system.settings?.permissions).toEqual({
      allow: [],
      ask: ['Bash'],
      deny: ['WebSearch', 'WebFetch', 'Read(./secret.txt)'],
      disableBypassPermissionsMode: true,
    });
    expect(system.settings?.untrustedPermissions).toEqual({ allow: ['Write'] });
    await system.dispose();
  });
});

describe('fail-open cases of copied settings (each accepted silently before)', () => {
  let workspace: string;
  beforeEach(async () => {
    workspace = await mkdtemp(join(tmpdir(), 'agentchart-claude-settings-'));
  });
  afterEach(() => rm(workspace, { recursive: true, force: true }));
  const withSettings = async (
    value: unknown,
    options: { tools?: never[] | ReturnType<typeof codingTools> } = {},
  ) => {
    const file = join(workspace, 'team.json');
    await writeFile(file, JSON.stringify(value));
    return {
      file,
      make: () => createAgentSystem({ model: scripted([]), cwd: workspace, settings: file, ...options }),
    };
  };

  it('a deny rule naming a misspelt tool is refused, naming the file, the entry and the nearest tool', async () => {
    const { file, make } = await withSettings({
      permissions: { deny: ['Bash(rm:*)', 'Read(./a)', 'Raed(./.env)'] },
    });
    expect(make).toThrow(ConfigError);
    expect(make).toThrow(
      `the settings file ${file}: permissions.deny[2] "Raed(./.env)": no tool is named Raed (did you mean Read?)`,
    );
    expect(() => createAgentSystem({ model: scripted([]), permissions: { ask: ['read_fle'] } })).toThrow(
      'createAgentSystem: permissions.ask[0] "read_fle": no tool is named read_fle (did you mean read_file?)',
    );
  });

  it("a host's own command hook whose matcher names no tool is refused like a copied one", async () => {
    const hook = (matcher: string) => ({ type: 'command' as const, command: 'exit 2', matcher });
    const make = (matcher: string) => () =>
      createAgentSystem({ model: scripted([]), tools: codingTools(), hooks: { preTool: [hook(matcher)] } });
    expect(make('Bsh')).toThrow(
      'createAgentSystem: hooks.preTool[0].matcher "Bsh": no tool is named Bsh (did you mean Bash?)',
    );
    await make('Bash|edit_file')().dispose();
  });

  it("a host's own tools count: a rule for one is accepted with it and refused without it", async () => {
    const { defineTool } = await import('../../src/index.ts');
    const { z } = await import('zod/v4');
    const save = defineTool({
      name: 'save',
      description: 's',
      access: 'write',
      input: z.object({}),
      run: async () => '',
    });
    const { file } = await withSettings({
      permissions: { deny: ['save'] },
      hooks: { PreToolUse: [{ matcher: 'save', hooks: [{ type: 'command', command: 'true' }] }] },
    });
    const system = createAgentSystem({ model: scripted([]), tools: [save], cwd: workspace, settings: file });
    expect(system.settings?.permissions.deny).toEqual(['save']);
    await system.dispose();
    expect(() => createAgentSystem({ model: scripted([]), cwd: workspace, settings: file })).toThrow(
      `the settings file ${file}: permissions.deny[0] "save": no tool is named save`,
    );
  });

  it('a hook matcher naming no tool is refused; a regular expression that matches none is a warning', async () => {
    const hook = (matcher: string) => ({ matcher, hooks: [{ type: 'command', command: 'true' }] });
    const { file, make } = await withSettings({ hooks: { PreToolUse: [hook('Bash|Edit'), hook('Bsh')] } });
    expect(make).toThrow(
      `the settings file ${file}: hooks.PreToolUse[1].matcher "Bsh": no tool is named Bsh (did you mean Bash?)`,
    );
    const exact = await withSettings({
      hooks: { PostToolUse: [hook('mcp__memory')] },
      mcpServers: { memory: { command: 'true' } },
    });
    expect(exact.make).toThrow(/"mcp__memory": mcp__memory names no tool: a matcher compares whole names/);
    const regex = await withSettings({
      hooks: { PreToolUse: [hook('Notebook.*'), hook('^Foo.*$'), hook('Write|Edit|MultiEdit')] },
    });
    const system = regex.make();
    expect(system.settings?.warnings).toEqual([
      `the settings file ${regex.file}: hooks.PreToolUse[1].matcher "^Foo.*$": this regular expression matches no tool today`,
    ]);
    await system.dispose();
  });

  it('misspelt keys are refused with the nearest key; Claude Code mode names are read, auto and dontAsk refused', async () => {
    const top = await withSettings({ permisions: { deny: ['Bash'] } });
    expect(top.make).toThrow('Unrecognized key: "permisions" ("permisions": did you mean "permissions"?)');
    const inner = await withSettings({ permissions: { dney: ['Bash'] } });
    expect(inner.make).toThrow(
      'is wrong at permissions: Unrecognized key: "dney" ("dney": did you mean "deny"?)',
    );
    const accept = await withSettings({ permissions: { defaultMode: 'acceptEdits' } });
    const system = accept.make();
    expect(system.settings?.permissions.defaultMode).toBe('accept-edits');
    await system.dispose();
    const dontAsk = await withSettings({ permissions: { defaultMode: 'dontAsk' } });
    expect(dontAsk.make).toThrow('is wrong at permissions.defaultMode: "dontAsk" is not supported');
  });

  it("disableAllHooks turns the files' command hooks off, and says so", async () => {
    const { file, make } = await withSettings({
      disableAllHooks: true,
      hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'exit 2' }] }] },
    });
    const system = make();
    expect(system.settings?.hooks).toEqual({});
    expect(system.settings?.sources.map((source) => [source.key, source.ignored])).toEqual([
      ['disableAllHooks', undefined],
      ['hooks.PreToolUse', `turned off by disableAllHooks in ${file}`],
    ]);
    await system.dispose();
  });
});

describe('allowedMcpServers and deniedMcpServers', () => {
  let folder: string;
  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), 'agentchart-server-lists-'));
  });
  afterEach(() => rm(folder, { recursive: true, force: true }));
  const file = async (name: string, scope: 'user' | 'workspace', value: unknown) => {
    await writeFile(join(folder, name), JSON.stringify(value));
    return { path: join(folder, name), scope };
  };

  it('a denied server never starts; once an allowlist is set, only what it names does; an untrusted one only narrows', async () => {
    const { readSettings } = await import('../../src/settings/settings-file.ts');
    const user = await file('user.json', 'user', {
      mcpServers: {
        github: { command: 'github-mcp' },
        files: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem'] },
        docs: { url: 'https://mcp.example.com/docs' },
        evil: { command: 'evil' },
      },
      allowedMcpServers: [
        { serverName: 'github' },
        { serverCommand: ['npx', '-y', '@modelcontextprotocol/server-filesystem'] },
        { serverUrl: 'https://*.example.com/*' },
      ],
    });
    const workspace = await file('workspace.json', 'workspace', {
      deniedMcpServers: [{ serverName: 'github' }],
      allowedMcpServers: [{ serverName: 'evil' }],
    });
    const loaded = readSettings([user, workspace]);
    expect(Object.keys(loaded.mcpServers)).toEqual(['files', 'docs']);
    expect(
      loaded.sources
        .filter((source) => source.key.startsWith('mcpServers.'))
        .map((source) => [source.key, source.ignored]),
    ).toEqual([
      ['mcpServers.github', 'blocked by deniedMcpServers'],
      ['mcpServers.files', undefined],
      ['mcpServers.docs', undefined],
      ['mcpServers.evil', 'not in allowedMcpServers'],
    ]);
    const lockdown = await file('lockdown.json', 'workspace', { allowedMcpServers: [] });
    expect(
      readSettings([
        await file('plain.json', 'user', { mcpServers: { github: { command: 'gh' } } }),
        lockdown,
      ]).mcpServers,
    ).toEqual({});
  });
});
