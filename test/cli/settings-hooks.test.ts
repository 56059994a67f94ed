import { describe, expect, it } from 'vitest';
import { loadSettings } from '../../src/settings/settings-file.ts';
import { runCli } from './cli-harness.ts';
import { toolCall as call, useSettingsCli, writeSettings } from './settings-fixture.ts';

describe('hooks in .agentchart/settings.json', () => {
  const world = useSettingsCli('agentchart-hooks-ws');

  // A Claude Code-style guard: reads tool_input.command from stdin, exit 2 with a reason on stderr.
  const guard = (word: string) => ({
    matcher: 'bash',
    hooks: [
      {
        type: 'command',
        command: `node -e "const i=JSON.parse(require('fs').readFileSync(0,'utf8')); if (i.tool_input.command.includes('${word}')) { process.stderr.write('no ${word} here'); process.exit(2); }"`,
        timeout: 10,
      },
    ],
  });

  it("runs the user's command hooks, and the workspace's only with --workspace-hooks", async () => {
    const { server, workspace, env, home } = world;
    await writeSettings(home, { hooks: { PreToolUse: [guard('secret')] } });
    await writeSettings(workspace, { hooks: { PreToolUse: [guard('touch')] } });
    const untrusted = await loadSettings(workspace, { HOME: home });
    expect([Object.keys(untrusted.hooks), untrusted.untrustedHooks]).toEqual([
      ['PreToolUse'],
      ['PreToolUse'],
    ]);
    expect(untrusted.hooks.PreToolUse).toHaveLength(1);

    const turn = () => {
      server.reply({ turn: { toolCalls: [call('c1', 'bash', { command: 'echo secret' })] } });
      server.reply({ turn: { toolCalls: [call('c2', 'bash', { command: 'touch made.txt' })] } });
      server.reply({ turn: { text: ['ok'] } });
    };
    const outcomes = (stdout: string) =>
      stdout
        .split('\n')
        .filter((text) => text.includes('"tool.result"'))
        .map((text) => JSON.parse(text).event.data)
        .map((data: { callId: string; outcome: string }) => `${data.callId} ${data.outcome}`);
    turn();
    const run = await runCli(['run', 'go', '--cwd', workspace, '--mode', 'bypass', '--json'], { env });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(
      "not running the hooks the workspace's settings name (PreToolUse); pass --workspace-hooks to trust them",
    );
    expect(outcomes(run.stdout)).toEqual(['c1 denied', 'c2 ok']);
    expect(run.stdout).toContain('no secret here');

    turn();
    const trusted = await runCli(
      ['run', 'go', '--cwd', workspace, '--mode', 'bypass', '--json', '--workspace-hooks'],
      {
        env,
      },
    );
    expect(trusted.code).toBe(0);
    expect(outcomes(trusted.stdout)).toEqual(['c1 denied', 'c2 denied']);
    const decided = trusted.stdout
      .split('\n')
      .filter((text) => text.includes('"hook.decided"'))
      .map((text) => JSON.parse(text).event.data)
      .map(
        (data: { point: string; outcome: string; callId: string }) =>
          `${data.point} ${data.callId} ${data.outcome}`,
      );
    expect(decided).toEqual(['preTool c1 deny', 'preTool c2 pass', 'preTool c2 deny']);
  }, 60_000);

  it('refuses a bad hooks entry with one line naming where, exit 2', async () => {
    const { server, workspace, env } = world;
    await writeSettings(workspace, {
      hooks: { PreToolUse: [{ matcher: '(', hooks: [{ type: 'command', command: 'true' }] }] },
    });
    const bad = await runCli(['run', 'go', '--cwd', workspace], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(
      /settings\.json is wrong at hooks\.PreToolUse\.0\.matcher: not a regular expression/,
    );
    await writeSettings(workspace, { hooks: { BeforeTool: [] } });
    const unknown = await runCli(['run', 'go', '--cwd', workspace], { env });
    expect(unknown.stderr).toMatch(/is wrong at hooks\.BeforeTool: unknown hook event "BeforeTool"/);
    await writeSettings(workspace, { hooks: { Stop: [{ hooks: [{ type: 'prompt', prompt: 'x' }] }] } });
    const kind = await runCli(['run', 'go', '--cwd', workspace], { env });
    expect(kind.code).toBe(2);
    expect(kind.stderr).toMatch(/is wrong at hooks\.Stop\.0\.hooks\.0/);
    expect(server.requests).toHaveLength(0);
  });
});
