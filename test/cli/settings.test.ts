import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadSettings } from '../../src/settings/settings-file.ts';
import { runCli } from './cli-harness.ts';
import {
  toolCall as call,
  settingsFileIn,
  settingsFilesLines,
  useSettingsCli,
  writeSettings,
} from './settings-fixture.ts';

const faultServer = fileURLToPath(new URL('../fixtures/mcp/fault-server.mjs', import.meta.url));

describe('permissions from --allow/--deny and .agentchart/settings.json', () => {
  const world = useSettingsCli('agentchart-settings');

  const userFile = () => settingsFileIn(world.home);
  const workspaceFile = () => settingsFileIn(world.workspace);
  const decisionReasons = (stdout: string) =>
    stdout
      .split('\n')
      .filter((text) => text.includes('"approval.decided"'))
      .map((text) => JSON.parse(text).event.data.reason);

  it('merges the user file and the workspace file (trusted); a deny rule wins', async () => {
    const { workspace, home } = world;
    await writeSettings(home, { permissions: { allow: ['bash(echo:*)'], defaultMode: 'plan' } });
    await writeSettings(workspace, {
      permissions: { deny: ['bash(echo secret:*)'], defaultMode: 'default' },
    });
    // Trusted, the workspace's looser `default` beats the user's `plan` (see workspace-permissions.test.ts).
    expect(await loadSettings(workspace, { HOME: home }, { trustWorkspacePermissions: true })).toEqual({
      permissions: {
        allow: ['bash(echo:*)'],
        ask: [],
        deny: ['bash(echo secret:*)'],
        defaultMode: 'default',
      },
      untrustedPermissions: { allow: [] },
      mcpServers: {},
      untrustedMcpServers: [],
      hooks: {},
      untrustedHooks: [],
      notUsed: [],
      warnings: [],
      files: [join(home, '.agentchart', 'settings.json'), join(workspace, '.agentchart', 'settings.json')],
      sources: [
        { key: 'permissions.allow', value: 'bash(echo:*)', file: userFile(), scope: 'user' },
        {
          key: 'permissions.defaultMode',
          value: 'plan',
          file: userFile(),
          scope: 'user',
          ignored: `overridden by ${workspaceFile()}`,
        },
        { key: 'permissions.deny', value: 'bash(echo secret:*)', file: workspaceFile(), scope: 'workspace' },
        { key: 'permissions.defaultMode', value: 'default', file: workspaceFile(), scope: 'workspace' },
      ],
    });
  });

  it("a deny rule in the user's file beats an allow rule in the workspace's, even a trusted one", async () => {
    const { server, workspace, env, home } = world;
    await writeSettings(home, { permissions: { deny: ['write_file'] } });
    await writeSettings(workspace, { permissions: { allow: ['write_file', 'bash(echo:*)'] } });
    server.reply({ turn: { toolCalls: [call('c1', 'write_file', { path: 'a.txt', content: 'x' })] } });
    server.reply({ turn: { toolCalls: [call('c2', 'bash', { command: 'echo hi' })] } });
    server.reply({ turn: { text: ['ok'] } });
    const run = await runCli(['run', 'go', '--cwd', workspace, '--json', '--workspace-permissions'], { env });
    expect(run.code).toBe(0);
    expect(decisionReasons(run.stdout)).toEqual([
      'denied by rule write_file',
      'allowed by rule bash(echo:*)',
    ]);
    await expect(readFile(join(workspace, 'a.txt'), 'utf8')).rejects.toThrow(/ENOENT/);
  });

  it('agentchart config prints the merged settings and where each value came from (workspace trusted)', async () => {
    const { workspace, env, home } = world;
    await writeSettings(home, { permissions: { deny: ['write_file'], defaultMode: 'plan' } });
    await writeSettings(workspace, {
      permissions: { allow: ['bash(npm test:*)'], defaultMode: 'accept-edits' },
      mcpServers: { theirs: { command: 'node' } },
    });
    const text = await runCli(['config', '--cwd', workspace, '--workspace-permissions'], { env });
    expect(text.code).toBe(0);
    expect(text.stdout.split('\n')).toEqual([
      ...settingsFilesLines(world),
      'In force:',
      `  permissions.deny = "write_file"  from user ${userFile()}`,
      `  permissions.allow = "bash(npm test:*)"  from workspace ${workspaceFile()}`,
      `  permissions.defaultMode = "accept-edits"  from workspace ${workspaceFile()}`,
      'Not in force:',
      `  permissions.defaultMode = "plan"  from user ${userFile()}: overridden by ${workspaceFile()}`,
      `  mcpServers.theirs = {"command":"node"}  from workspace ${workspaceFile()}: workspace servers are not trusted (--workspace-mcp)`,
      '',
    ]);
    const json = await runCli(
      ['config', '--cwd', workspace, '--json', '--workspace-mcp', '--workspace-permissions'],
      { env },
    );
    const printed = JSON.parse(json.stdout);
    expect(printed.settings).toEqual({
      permissions: {
        allow: ['bash(npm test:*)'],
        ask: [],
        deny: ['write_file'],
        defaultMode: 'accept-edits',
      },
      mcpServers: { theirs: { command: 'node' } },
      hooks: {},
    });
    expect(printed.files).toEqual([
      { path: userFile(), scope: 'user', read: true },
      { path: join(workspace, '.claude', 'settings.json'), scope: 'workspace', read: false },
      { path: join(workspace, '.claude', 'settings.local.json'), scope: 'workspace', read: false },
      { path: workspaceFile(), scope: 'workspace', read: true },
    ]);
    expect(
      printed.sources.map((source: { key: string; ignored?: string }) => [source.key, source.ignored]),
    ).toEqual([
      ['permissions.deny', undefined],
      ['permissions.defaultMode', `overridden by ${workspaceFile()}`],
      ['permissions.allow', undefined],
      ['permissions.defaultMode', undefined],
      ['mcpServers.theirs', undefined],
    ]);
    await rm(join(home, '.agentchart'), { recursive: true });
    await rm(join(workspace, '.agentchart'), { recursive: true });
    const none = await runCli(['config', '--cwd', workspace], { env });
    expect(none.stdout).toContain(`  user      ${userFile()} (not present)`);
    expect(none.stdout).toContain('No settings: every value is the default');
    await writeSettings(workspace, { permissions: { defaultMode: 'sometimes' } });
    const bad = await runCli(['config', '--cwd', workspace], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(
      /^agentchart: the settings file .*settings\.json is wrong at permissions\.defaultMode: Invalid option: expected one of "plan"\|"default"\|"accept-edits"\|"bypass"\|"acceptEdits"\|"bypassPermissions"\|"manual" \[config\]\n$/,
    );
  });

  it("agentchart config lists hooks of both files, the workspace's as not in force unless trusted", async () => {
    const { workspace, env, home } = world;
    const guard = { matcher: 'bash', hooks: [{ type: 'command', command: 'node guard.mjs' }] };
    const tests = { hooks: [{ type: 'command', command: './tests.sh', timeout: 30 }] };
    await writeSettings(home, { hooks: { Stop: [tests] } });
    await writeSettings(workspace, { hooks: { PreToolUse: [guard] } });
    const text = await runCli(['config', '--cwd', workspace], { env });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`  hooks.Stop = ${JSON.stringify(tests)}  from user ${userFile()}\n`);
    expect(text.stdout).toContain(
      `Not in force:\n  hooks.PreToolUse = ${JSON.stringify(guard)}  from workspace ${workspaceFile()}: workspace hooks are not trusted (--workspace-hooks)`,
    );
    const json = JSON.parse((await runCli(['config', '--cwd', workspace, '--json'], { env })).stdout);
    expect(json.untrustedHooks).toEqual(['PreToolUse']);
    expect(Object.keys(json.settings.hooks)).toEqual(['Stop']);
    const trusted = JSON.parse(
      (await runCli(['config', '--cwd', workspace, '--json', '--workspace-hooks'], { env })).stdout,
    );
    expect(trusted.untrustedHooks).toEqual([]);
    expect(Object.keys(trusted.settings.hooks).sort()).toEqual(['PreToolUse', 'Stop']);
    expect(trusted.sources.every((source: { ignored?: string }) => source.ignored === undefined)).toBe(true);
  });

  it("starts the user's MCP servers, and the workspace's only with --workspace-mcp", async () => {
    const { server, workspace, env, home } = world;
    const stdio = (name: string) => ({ command: process.execPath, args: [faultServer, name] });
    await writeSettings(home, { mcpServers: { mine: stdio('mine') } });
    await writeSettings(workspace, { mcpServers: { theirs: stdio('theirs') } });
    const untrusted = await loadSettings(workspace, { HOME: home });
    expect([Object.keys(untrusted.mcpServers), untrusted.untrustedMcpServers]).toEqual([
      ['mine'],
      ['theirs'],
    ]);
    const trusted = await loadSettings(workspace, { HOME: home }, { trustWorkspaceMcp: true });
    expect(Object.keys(trusted.mcpServers)).toEqual(['mine', 'theirs']);

    // Through the CLI: the model is offered the user's server's tools; the workspace's are named, not run.
    const toolsOffered = (index: number) =>
      ((server.requests[index]!.body as { tools?: { function: { name: string } }[] }).tools ?? []).map(
        (tool) => tool.function.name,
      );
    server.reply({ turn: { text: ['Done.'] } });
    const run = await runCli(['run', 'hello', '--cwd', workspace], { env });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(
      "not starting the MCP servers the workspace's settings name (theirs); pass --workspace-mcp to trust them",
    );
    expect(toolsOffered(0)).toContain('mcp__mine__echo');
    expect(toolsOffered(0).some((name) => name.startsWith('mcp__theirs__'))).toBe(false);
    server.reply({ turn: { text: ['Done again.'] } });
    const trustedRun = await runCli(['run', 'hello', '--cwd', workspace, '--workspace-mcp'], { env });
    expect(trustedRun.code).toBe(0);
    expect(toolsOffered(1)).toEqual(expect.arrayContaining(['mcp__mine__echo', 'mcp__theirs__echo']));
  }, 60_000);

  it('refuses an mcpServers entry that is not a server, naming the key', async () => {
    const { workspace, home } = world;
    await writeSettings(workspace, { mcpServers: { bad: { url: 5 } } });
    await expect(loadSettings(workspace, { HOME: home })).rejects.toThrow(
      /settings\.json is wrong at mcpServers\.bad/,
    );
  });

  it('runs what the settings and --allow allow without a terminal, and denies the rest', async () => {
    const { server, workspace, env } = world;
    await writeSettings(workspace, {
      permissions: { allow: ['bash(echo:*)'], deny: ['bash(echo secret:*)'] },
    });
    server.reply({ turn: { toolCalls: [call('c1', 'bash', { command: 'echo hi' })] } });
    server.reply({ turn: { toolCalls: [call('c2', 'bash', { command: 'echo secret' })] } });
    server.reply({ turn: { toolCalls: [call('c3', 'write_file', { path: 'a.txt', content: 'x' })] } });
    server.reply({ turn: { text: ['ok'] } });
    const flags = ['--allow', 'write_file(*.txt)', '--json', '--workspace-permissions'];
    const run = await runCli(['run', 'go', '--cwd', workspace, ...flags], { env });
    expect(run.code).toBe(0);
    const decided = run.stdout
      .split('\n')
      .filter((text) => text.includes('"approval.decided"'))
      .map((text) => JSON.parse(text).event.data.reason);
    expect(decided).toEqual([
      'allowed by rule bash(echo:*)',
      'denied by rule bash(echo secret:*)',
      'allowed by rule write_file(*.txt)',
    ]);
    expect(await readFile(join(workspace, 'a.txt'), 'utf8')).toBe('x');
  });

  it('refuses a bad settings file or rule with one line naming where, exit 2', async () => {
    const { server, workspace, env } = world;
    await writeSettings(workspace, { permissions: { allow: ['bash('] } });
    const bad = await runCli(['run', 'go', '--cwd', workspace], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(
      /^agentchart: the settings file .*settings\.json is wrong at permissions\.allow\.0: "bash\(": write a tool name/,
    );
    await writeSettings(workspace, { permisions: {} });
    const typo = await runCli(['run', 'go', '--cwd', workspace], { env });
    expect(typo.stderr).toMatch(/is wrong at \(the top level\): Unrecognized key: "permisions"/);
    await writeFile(join(workspace, '.agentchart', 'settings.json'), '{ nope');
    const json = await runCli(['run', 'go', '--cwd', workspace], { env });
    expect(json.stderr).toMatch(/is not valid JSON/);
    await rm(join(workspace, '.agentchart'), { recursive: true });
    const flag = await runCli(['run', 'go', '--cwd', workspace, '--deny', 'bash(:*)'], { env });
    expect(flag.code).toBe(2);
    expect(flag.stderr).toBe(
      'agentchart: --allow/--deny "bash(:*)" is not a rule: the command prefix before ":*" is empty [usage]\n',
    );
    expect(server.requests).toHaveLength(0);
  });

  it('--max-steps ends the turn at its step limit', async () => {
    const { server, workspace, env } = world;
    server.reply({ turn: { toolCalls: [call('c1', 'list_dir', {})] } });
    server.reply({ turn: { toolCalls: [call('c2', 'list_dir', {})] } });
    const run = await runCli(['run', 'go', '--cwd', workspace, '--max-steps', '1', '--json'], { env });
    const last = JSON.parse(run.stdout.trim().split('\n').at(-1)!);
    expect(last).toMatchObject({ type: 'result', reason: 'max_steps', turn: 1 });
    expect(run.code).toBe(1);
  });
});
