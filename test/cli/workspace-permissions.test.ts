// A workspace's own .agentchart/settings.json (a cloned repository, or a file the model was prompted to write)
// may only make permissions stricter unless the person trusts it (--workspace-permissions): its deny rules and
// a stricter defaultMode apply; its allow rules and a looser defaultMode are shown and not taken. The library's
// `settings: 'workspace'` never takes them; a file the host names by path is the host's own.

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createAgentSystem } from '../../src/index.ts';
import { scripted } from '../../src/providers/scripted.ts';
import { loadSettings } from '../../src/settings/settings-file.ts';
import { recordingTool } from '../support/recording-tool.ts';
import { runCli } from './cli-harness.ts';
import {
  toolCall as call,
  settingsFileIn,
  settingsFilesLines,
  useSettingsCli,
  writeSettings,
} from './settings-fixture.ts';

/** The JSON lines of `run --json` whose log event has one of `types`, as `[type, data]`. */
const logged = (stdout: string, types: string[]) =>
  stdout
    .split('\n')
    .filter((text) => text.startsWith('{'))
    .map(
      (text) => JSON.parse(text) as { type: string; event?: { type: string; data: Record<string, unknown> } },
    )
    .filter((item) => item.type === 'log' && types.includes(item.event!.type))
    .map((item): [string, Record<string, unknown>] => [item.event!.type, item.event!.data]);

const held =
  'agentchart: the workspace\'s .agentchart/settings.json asks for permissions.allow ["bash"] and ' +
  `defaultMode "bypass": not in force (pass --workspace-permissions to trust this workspace's settings)`;
const nobodyToAsk =
  'agentchart: stdin is not a terminal, so nobody can approve tool calls: edits and commands will be denied ' +
  '(use --yes for accept-edits or --mode bypass to allow them).';

describe("the workspace's settings file without trust", () => {
  const world = useSettingsCli('agentchart-ws-perms');

  const userFile = () => settingsFileIn(world.home);
  const workspaceFile = () => settingsFileIn(world.workspace);
  it('runs no command on its allow ["bash"] and defaultMode "bypass"; --workspace-permissions takes them', async () => {
    const { server, workspace, env } = world;
    await writeSettings(workspace, { permissions: { allow: ['bash'], defaultMode: 'bypass' } });
    const touch = () => {
      server.reply({ turn: { toolCalls: [call('c1', 'bash', { command: 'touch made.txt' })] } });
      server.reply({ turn: { text: ['ok'] } });
    };
    touch();
    const run = await runCli(['run', 'go', '--cwd', workspace, '--json'], { env });
    expect(run.code).toBe(0);
    // Under --json the person's lines go to stderr: what was held back first, then what runs.
    expect(run.stderr.split('\n').slice(0, 3)).toEqual([
      held,
      nobodyToAsk,
      expect.stringMatching(/^agentchart: OpenAI-compatible .* · mode default · /),
    ]);
    const types = ['session.start', 'approval.decided'];
    expect(logged(run.stdout, types).map(([type, data]) => [type, decisionOrMode(data)])).toEqual([
      ['session.start', 'default'],
      ['approval.decided', { outcome: 'deny', by: 'headless' }],
    ]);
    expect(existsSync(join(workspace, 'made.txt'))).toBe(false);

    touch();
    const trusted = await runCli(['run', 'go', '--cwd', workspace, '--json', '--workspace-permissions'], {
      env,
    });
    expect(trusted.code).toBe(0);
    expect(trusted.stderr.split('\n')[0]).toMatch(/^agentchart: OpenAI-compatible .* · mode bypass · /);
    expect(logged(trusted.stdout, types).map(([type, data]) => [type, decisionOrMode(data)])).toEqual([
      ['session.start', 'bypass'],
      ['approval.decided', { outcome: 'allow', by: 'rule' }],
    ]);
    expect(existsSync(join(workspace, 'made.txt'))).toBe(true);
  });

  it('takes its deny rules and a stricter defaultMode, holds back its allow rules and a looser mode', async () => {
    const { workspace, home } = world;
    await writeSettings(home, { permissions: { allow: ['bash(echo:*)'], defaultMode: 'accept-edits' } });
    await writeSettings(workspace, {
      permissions: { allow: ['write_file'], deny: ['bash(echo secret:*)'], defaultMode: 'default' },
    });
    const untrusted = 'workspace permissions are not trusted (--workspace-permissions)';
    expect(await loadSettings(workspace, { HOME: home })).toEqual({
      permissions: {
        allow: ['bash(echo:*)'],
        ask: [],
        deny: ['bash(echo secret:*)'],
        defaultMode: 'default',
      },
      untrustedPermissions: { allow: ['write_file'] },
      mcpServers: {},
      untrustedMcpServers: [],
      hooks: {},
      untrustedHooks: [],
      notUsed: [],
      warnings: [],
      files: [userFile(), workspaceFile()],
      sources: [
        { key: 'permissions.allow', value: 'bash(echo:*)', file: userFile(), scope: 'user' },
        {
          key: 'permissions.defaultMode',
          value: 'accept-edits',
          file: userFile(),
          scope: 'user',
          ignored: `overridden by ${workspaceFile()}`,
        },
        {
          key: 'permissions.allow',
          value: 'write_file',
          file: workspaceFile(),
          scope: 'workspace',
          ignored: untrusted,
        },
        { key: 'permissions.deny', value: 'bash(echo secret:*)', file: workspaceFile(), scope: 'workspace' },
        { key: 'permissions.defaultMode', value: 'default', file: workspaceFile(), scope: 'workspace' },
      ],
    });

    // Modes, strictest first: plan, default, accept-edits, bypass. Stricter than the user's (or than
    // `default` when the user sets none) applies; looser is held back.
    const modeWith = async (user: string | undefined, theirs: string) => {
      await writeSettings(home, user ? { permissions: { defaultMode: user } } : {});
      await writeSettings(workspace, { permissions: { defaultMode: theirs } });
      const settings = await loadSettings(workspace, { HOME: home });
      return [settings.permissions.defaultMode, settings.untrustedPermissions.defaultMode];
    };
    expect(await modeWith(undefined, 'plan')).toEqual(['plan', undefined]);
    expect(await modeWith(undefined, 'default')).toEqual(['default', undefined]);
    expect(await modeWith(undefined, 'accept-edits')).toEqual([undefined, 'accept-edits']);
    expect(await modeWith('plan', 'default')).toEqual(['plan', 'default']);
    expect(await modeWith('default', 'bypass')).toEqual(['default', 'bypass']);
    const trusted = await loadSettings(workspace, { HOME: home }, { trustWorkspacePermissions: true });
    expect([trusted.permissions.defaultMode, trusted.untrustedPermissions]).toEqual([
      'bypass',
      { allow: [] },
    ]);
  });

  it('agentchart config lists what it asked for as not in force, and as in force with --workspace-permissions', async () => {
    const { workspace, env, home } = world;
    await writeSettings(home, { permissions: { deny: ['write_file'] } });
    await writeSettings(workspace, {
      permissions: { allow: ['bash(npm test:*)'], deny: ['bash(rm:*)'], defaultMode: 'accept-edits' },
    });
    const text = await runCli(['config', '--cwd', workspace], { env });
    expect(text.code).toBe(0);
    expect(text.stdout.split('\n')).toEqual([
      ...settingsFilesLines(world),
      'In force:',
      `  permissions.deny = "write_file"  from user ${userFile()}`,
      `  permissions.deny = "bash(rm:*)"  from workspace ${workspaceFile()}`,
      '  permissions.defaultMode  (not set: default)',
      'Not in force:',
      `  permissions.allow = "bash(npm test:*)"  from workspace ${workspaceFile()}: workspace permissions are not trusted (--workspace-permissions)`,
      `  permissions.defaultMode = "accept-edits"  from workspace ${workspaceFile()}: looser than "default"; workspace permissions are not trusted (--workspace-permissions)`,
      '',
    ]);
    const json = JSON.parse((await runCli(['config', '--cwd', workspace, '--json'], { env })).stdout);
    expect([json.settings.permissions, json.untrustedPermissions]).toEqual([
      { allow: [], ask: [], deny: ['write_file', 'bash(rm:*)'] },
      { allow: ['bash(npm test:*)'], defaultMode: 'accept-edits' },
    ]);
    const trusted = JSON.parse(
      (await runCli(['config', '--cwd', workspace, '--json', '--workspace-permissions'], { env })).stdout,
    );
    expect([trusted.settings.permissions, trusted.untrustedPermissions]).toEqual([
      {
        allow: ['bash(npm test:*)'],
        ask: [],
        deny: ['write_file', 'bash(rm:*)'],
        defaultMode: 'accept-edits',
      },
      { allow: [] },
    ]);
    expect(trusted.sources.every((source: { ignored?: string }) => source.ignored === undefined)).toBe(true);
  });
});

describe("createAgentSystem({ settings: 'workspace' })", () => {
  const world = useSettingsCli('agentchart-ws-perms-lib');
  beforeEach(async () => {
    // The library reads the user's file from HOME: one with no settings, so only the workspace's counts.
    vi.stubEnv('HOME', world.home);
    await writeSettings(world.workspace, { permissions: { allow: ['save'], defaultMode: 'bypass' } });
  });
  afterEach(() => vi.unstubAllEnvs());

  const { tool: save, ran: saved } = recordingTool({
    name: 'save',
    description: 'writes',
    access: 'write',
    field: 'path',
    answer: () => 'saved',
  });

  /** One `save` call under `settings`, nobody to ask: what was decided and in which mode. */
  async function saveUnder(settings: string) {
    const system = createAgentSystem({
      model: scripted([
        { toolCalls: [{ id: 'c1', name: 'save', input: { path: 'a.txt' } }] },
        { text: 'done' },
      ]),
      tools: [save],
      cwd: world.workspace,
      projectInstructions: false,
      settings,
      approve: 'deny',
    });
    const agent = await system.createAgent({ id: 'a' });
    await agent.run('go');
    const log = agent.log();
    await system.dispose();
    return {
      settings: system.settings,
      mode: log
        .filter((event) => event.type === 'session.start')
        .map((event) => decisionOrMode(event.data))[0],
      decided: log
        .filter((event) => event.type === 'approval.decided')
        .map((event) => decisionOrMode(event.data)),
    };
  }

  it("never takes the workspace file's allow rules or looser mode; a path the host names is trusted wholly", async () => {
    saved.length = 0;
    const untrusted = await saveUnder('workspace');
    expect([untrusted.mode, untrusted.decided, saved]).toEqual([
      'default',
      [{ outcome: 'deny', by: 'headless' }],
      [],
    ]);
    expect(untrusted.settings?.untrustedPermissions).toEqual({ allow: ['save'], defaultMode: 'bypass' });
    const named = await saveUnder('.agentchart/settings.json');
    expect([named.mode, named.decided, saved]).toEqual([
      'bypass',
      [{ outcome: 'allow', by: 'rule' }],
      ['a.txt'],
    ]);
    expect(named.settings?.untrustedPermissions).toEqual({ allow: [] });
  });
});

/** The mode of a `session.start`, or the outcome and author of an `approval.decided`. */
function decisionOrMode(data: object): unknown {
  if ('config' in data) return (data.config as { permissionMode: string }).permissionMode;
  const { outcome, by } = data as { outcome: string; by: string };
  return { outcome, by };
}
