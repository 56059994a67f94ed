// Claude Code's settings files copied into a workspace's `.claude/` folder, through the CLI: `agentchart
// config --json` as a child process, and runs. Test data is read where the repository keeps it, with
// repository, path and commit in docs/claude-code/corpus/PROVENANCE.md: anthropics/claude-code
// `examples/settings/settings-strict.json` (4936302) and `settings-lax.json` (f93f614), getsentry/sentry
// `.claude/settings.json` (0752373).
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCliProcess } from '../support/child-run.ts';
import { runCli } from './cli-harness.ts';
import { toolCall as call, useSettingsCli, writeSettings } from './settings-fixture.ts';

const corpus = fileURLToPath(new URL('../../docs/claude-code/corpus/', import.meta.url));
const strict = join(corpus, 'anthropics__claude-code/examples/settings/settings-strict.json');
const lax = join(corpus, 'anthropics__claude-code/examples/settings/settings-lax.json');
const sentry = join(corpus, 'getsentry__sentry/.claude/settings.json');

describe("Claude Code's settings files in .claude/, through the CLI", () => {
  const world = useSettingsCli('agentchart-claude-cli');
  const claudeFile = async (name: string, from: string | unknown) => {
    await mkdir(join(world.workspace, '.claude'), { recursive: true });
    const to = join(world.workspace, '.claude', name);
    if (typeof from === 'string') await copyFile(from, to);
    else await writeFile(to, JSON.stringify(from));
    return to;
  };

  it('agentchart config --json shows the rules in force, the keys not used and the warnings', async () => {
    const { workspace, env, home } = world;
    const shared = await claudeFile('settings.json', strict);
    const local = await claudeFile('settings.local.json', sentry);
    const run = await runCliProcess(['config', '--cwd', workspace, '--json', '--workspace-permissions'], {
      env: { HOME: home },
    });
    expect([run.code, run.stderr]).toEqual([0, '']);
    const printed = JSON.parse(run.stdout);
    expect(
      printed.files.filter((file: { read: boolean }) => file.read).map((file: { path: string }) => file.path),
    ).toEqual([shared, local]);
    expect(printed.settings.permissions).toMatchObject({
      ask: ['Bash'],
      deny: ['WebSearch', 'WebFetch'],
      disableBypassPermissionsMode: true,
    });
    expect(printed.settings.permissions.allow).toContain('Bash(git status:*)');
    expect(printed.notUsed.map((value: { key: string; file: string }) => [value.key, value.file])).toEqual([
      ['allowManagedPermissionRulesOnly', shared],
      ['allowManagedHooksOnly', shared],
      ['strictKnownMarketplaces', shared],
      ['sandbox', shared],
      ['enableAllProjectMcpServers', local],
      ['includeCoAuthoredBy', local],
      ['enabledMcpjsonServers', local],
      ['permissions.additionalDirectories', local],
    ]);
    expect(printed.warnings).toEqual([
      `the settings file ${local}: permissions.allow[59] "mcp__sentry__analyze_issue_with_seer" and 8 more like it: no MCP server named sentry is configured (configured: none)`,
    ]);
    const text = await runCli(['config', '--cwd', workspace], { env });
    const lines = text.stdout.split('\n');
    expect(lines).toContain('Not used by agentchart (Claude Code settings):');
    expect(lines).toContain(
      `  includeCoAuthoredBy = false  from workspace ${local}: a Claude Code feature agentchart does not have`,
    );
    // Untrusted, sentry's allow rules are not in force, so they are not checked (nor warned about).
    expect(lines).not.toContain('Warnings:');
  });

  it('refuses a deny rule naming no tool, and bypass where a file switched it off (exit 2)', async () => {
    const { server, workspace, env } = world;
    const file = await claudeFile('settings.json', { permissions: { deny: ['Raed(./.env)'] } });
    const typo = await runCli(['run', 'go', '--cwd', workspace], { env });
    expect([typo.code, typo.stderr]).toEqual([
      2,
      `agentchart: the settings file ${file}: permissions.deny[0] "Raed(./.env)": no tool is named Raed (did you mean Read?) [config]\n`,
    ]);
    await claudeFile('settings.json', lax);
    const bypass = await runCli(['run', 'go', '--cwd', workspace, '--mode', 'bypass'], { env });
    expect([bypass.code, bypass.stderr]).toEqual([
      2,
      `agentchart: permission mode "bypass" is disabled by permissions.disableBypassPermissionsMode in the settings file ${file} [config]\n`,
    ]);
    const flag = await runCli(['run', 'go', '--cwd', workspace, '--deny', 'Bsh'], { env });
    expect(flag.stderr).toBe(
      'agentchart: --deny: "Bsh": no tool is named Bsh (did you mean Bash?) [config]\n',
    );
    expect(server.requests).toHaveLength(0);
  });

  it("an untrusted workspace's ask rule still asks (headless: denied); a warning is printed at start", async () => {
    const { server, workspace, env, home } = world;
    await claudeFile('settings.json', strict);
    const hook = { matcher: '^Foo.*$', hooks: [{ type: 'command', command: 'true' }] };
    await writeSettings(home, { hooks: { PreToolUse: [hook] } });
    server.reply({ turn: { toolCalls: [call('c1', 'bash', { command: 'echo hi' })] } });
    server.reply({ turn: { text: ['ok'] } });
    const run = await runCli(['run', 'go', '--cwd', workspace, '--yes', '--allow', 'bash', '--json'], {
      env,
    });
    expect(run.code).toBe(0);
    expect(run.stderr.split('\n')[0]).toBe(
      `agentchart: warning: the settings file ${join(home, '.agentchart', 'settings.json')}: hooks.PreToolUse[0].matcher "^Foo.*$": this regular expression matches no tool today`,
    );
    const reasons = run.stdout
      .split('\n')
      .filter((text) => text.includes('"approval.decided"'))
      .map((text) => JSON.parse(text).event.data.reason);
    expect(reasons).toEqual([
      'asks by rule Bash; nobody can approve it in this session (headless), so it was denied',
    ]);
  });
});
