import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadSettings } from '../../src/cli/settings.ts';
import { type OpenAIChatServer, startOpenAIChatServer } from '../support/wire/openai-chat-server.ts';
import { runCli } from './cli-harness.ts';

const faultServer = fileURLToPath(new URL('../fixtures/mcp/fault-server.mjs', import.meta.url));

const call = (id: string, name: string, input: unknown) => ({
  id,
  name,
  argumentPieces: [JSON.stringify(input)],
});

describe('permissions from --allow/--deny and .agentchart/settings.json', () => {
  let server: OpenAIChatServer;
  let workspace: string;
  let home: string;
  let env: Record<string, string>;

  beforeEach(async () => {
    server = await startOpenAIChatServer();
    workspace = await mkdtemp(join(tmpdir(), 'agentchart-settings-'));
    home = await mkdtemp(join(tmpdir(), 'agentchart-home-'));
    env = { HOME: home, ANTHROPIC_API_KEY: '', OPENAI_API_KEY: 'k', OPENAI_BASE_URL: `${server.url}/v1` };
  });
  afterEach(async () => {
    await server.close();
    await rm(workspace, { recursive: true, force: true });
    await rm(home, { recursive: true, force: true });
  });

  const writeSettings = async (root: string, value: unknown) => {
    await mkdir(join(root, '.agentchart'), { recursive: true });
    await writeFile(join(root, '.agentchart', 'settings.json'), JSON.stringify(value));
  };

  it('merges the user file and the workspace file; a deny rule wins', async () => {
    await writeSettings(home, { permissions: { allow: ['bash(echo:*)'], defaultMode: 'plan' } });
    await writeSettings(workspace, {
      permissions: { deny: ['bash(echo secret:*)'], defaultMode: 'default' },
    });
    expect(await loadSettings(workspace, { HOME: home })).toEqual({
      permissions: { allow: ['bash(echo:*)'], deny: ['bash(echo secret:*)'], defaultMode: 'default' },
      mcpServers: {},
      untrustedMcpServers: [],
      hooks: {},
      untrustedHooks: [],
      files: [join(home, '.agentchart', 'settings.json'), join(workspace, '.agentchart', 'settings.json')],
    });
  });

  it("starts the user's MCP servers, and the workspace's only with --workspace-mcp", async () => {
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
    await writeSettings(workspace, { mcpServers: { bad: { url: 5 } } });
    await expect(loadSettings(workspace, { HOME: home })).rejects.toThrow(
      /settings\.json is wrong at mcpServers\.bad/,
    );
  });

  it('runs what the settings and --allow allow without a terminal, and denies the rest', async () => {
    await writeSettings(workspace, {
      permissions: { allow: ['bash(echo:*)'], deny: ['bash(echo secret:*)'] },
    });
    server.reply({ turn: { toolCalls: [call('c1', 'bash', { command: 'echo hi' })] } });
    server.reply({ turn: { toolCalls: [call('c2', 'bash', { command: 'echo secret' })] } });
    server.reply({ turn: { toolCalls: [call('c3', 'write_file', { path: 'a.txt', content: 'x' })] } });
    server.reply({ turn: { text: ['ok'] } });
    const run = await runCli(['run', 'go', '--cwd', workspace, '--allow', 'write_file(*.txt)', '--json'], {
      env,
    });
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
    server.reply({ turn: { toolCalls: [call('c1', 'list_dir', {})] } });
    server.reply({ turn: { toolCalls: [call('c2', 'list_dir', {})] } });
    const run = await runCli(['run', 'go', '--cwd', workspace, '--max-steps', '1', '--json'], { env });
    const last = JSON.parse(run.stdout.trim().split('\n').at(-1)!);
    expect(last).toMatchObject({ type: 'result', reason: 'max_steps', turn: 1 });
    expect(run.code).toBe(1);
  });
});
