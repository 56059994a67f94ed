// Sessions live outside the workspace, in the user's state folder (XDG_STATE_HOME here): the workspace
// stays clean, the agent's tools cannot rewrite the log of their own session, and sessions recorded in an
// older workspace-local .agentchart/sessions are still found by id.
import { mkdir, readdir, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { latestSession } from '../../src/cli/chat/session-lookup.ts';
import { workspaceSessionsFolder } from '../../src/cli/session-folders.ts';
import { readLog } from '../../src/session/log-text.ts';
import { wireToolCall as call, useCliWorld } from '../support/cli-world.ts';
import { runCli, testSessionsFolder, testStateHome } from './cli-harness.ts';

describe("sessions in the user's state folder", () => {
  const world = useCliWorld({ prefix: 'agentchart-home-ws', home: 'unset' });

  it('writes the log under XDG_STATE_HOME, keyed by workspace, and nothing into the workspace', async () => {
    const { server, workspace, env } = world;
    server.reply({ turn: { text: ['Hello.'] } });
    const run = await runCli(['run', 'say hello', '--cwd', workspace], { env });
    expect(run.code).toBe(0);
    const folder = testSessionsFolder(workspace);
    expect(folder.startsWith(join(testStateHome, 'agentchart', 'sessions', ''))).toBe(true);
    const logs = await readdir(folder);
    expect(logs).toHaveLength(1);
    expect(run.stdout).toContain(`Session log: ${join(folder, logs[0]!)}`);
    expect(await readdir(workspace)).toEqual([]);
  });

  it("the agent's write_file and bash in the workspace cannot reach the session's own log", async () => {
    const { server, workspace, env } = world;
    const sessionFile = join(testSessionsFolder(workspace), 's1.jsonl');
    server.reply({
      turn: {
        toolCalls: [
          call('c1', 'write_file', { path: sessionFile, content: 'overwritten\n' }),
          // Where the log lived when it was kept in the workspace.
          call('c2', 'bash', {
            command: 'mkdir -p .agentchart/sessions && echo "{broken" >> .agentchart/sessions/s1.jsonl',
          }),
        ],
      },
    });
    server.reply({ turn: { text: ['Done.'] } });
    const run = await runCli(
      ['run', 'tamper', '--cwd', workspace, '--mode', 'bypass', '--session', sessionFile],
      {
        env,
      },
    );
    expect(run.code).toBe(0);
    const log = await readLog(sessionFile);
    const results = log
      .filter((event) => event.type === 'tool.result')
      .map((event) => event.data as { callId: string; outcome: string; content: string });
    expect(results.map((result) => [result.callId, result.outcome])).toEqual([
      ['c1', 'error'],
      ['c2', 'ok'],
    ]);
    expect(results[0]!.content).toMatch(/outside the workspace/);
    // Every line is still an event of this session, from session.start to session.end.
    expect(log[0]!.type).toBe('session.start');
    expect(log.map((event) => event.seq)).toEqual(log.map((_, index) => index));
    expect(log.filter((event) => event.type === 'turn.end')).toHaveLength(1);
    expect(log.at(-1)!.type).toBe('session.end');
  });

  it('finds a session recorded in the workspace .agentchart/sessions by its id, and --session-dir overrides', async () => {
    const { server, workspace, env } = world;
    const legacy = workspaceSessionsFolder(workspace);
    server.reply({ turn: { text: ['First.'] } });
    const first = await runCli(['run', 'one', '--cwd', workspace, '--session', join(legacy, 'old.jsonl')], {
      env,
    });
    expect(first.code).toBe(0);
    server.reply({ turn: { text: ['Second.'] } });
    const resumed = await runCli(['resume', 'old', 'two', '--cwd', workspace], { env, cwd: workspace });
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain('Second.');
    const log = await readLog(join(legacy, 'old.jsonl'));
    expect(log.filter((event) => event.type === 'turn.end')).toHaveLength(2);

    const elsewhere = join(workspace, 'logs');
    server.reply({ turn: { text: ['Third.'] } });
    const chosen = await runCli(['run', 'three', '--cwd', workspace, '--session-dir', elsewhere], { env });
    expect(chosen.code).toBe(0);
    expect(await readdir(elsewhere)).toHaveLength(1);
  });

  it('--continue picks the newest top-level session across the state folder and the old workspace folder', async () => {
    const { workspace } = world;
    const state = join(workspace, 'state');
    const legacy = join(workspace, 'legacy');
    await mkdir(state);
    await mkdir(legacy);
    const start = (parent?: string) =>
      `${JSON.stringify({ seq: 0, type: 'session.start', data: parent ? { parent } : {} })}\n`;
    await writeFile(join(state, 'a.jsonl'), start());
    await writeFile(join(legacy, 'b.jsonl'), start());
    await writeFile(join(legacy, 'child.jsonl'), start('b'));
    await utimes(join(state, 'a.jsonl'), 1000, 1000);
    await utimes(join(legacy, 'b.jsonl'), 2000, 2000);
    await utimes(join(legacy, 'child.jsonl'), 3000, 3000);
    expect(await latestSession([state, legacy])).toEqual({ dir: legacy, sessionId: 'b' });
    await utimes(join(state, 'a.jsonl'), 4000, 4000);
    expect(await latestSession([state, legacy])).toEqual({ dir: state, sessionId: 'a' });
    expect(await latestSession([join(workspace, 'none')])).toBeUndefined();
  });
});
