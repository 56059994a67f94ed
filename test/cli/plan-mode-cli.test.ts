// Plan mode through the CLI: without a terminal nobody can accept a plan, so it is denied and the session
// stays in plan mode; `resume --mode` resumes it in the mode given and the edit then runs.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readLog } from '../../src/session/log-text.ts';
import { wireToolCall as call, useCliWorld } from '../support/cli-world.ts';
import { runCli } from './cli-harness.ts';

describe('plan mode in the CLI', () => {
  const world = useCliWorld({ prefix: 'agentchart-plan-cli', home: 'workspace' });

  it('denies a plan headless, and resume --mode resumes in that mode so the edit runs', async () => {
    const { server, workspace, env } = world;
    server.reply({ turn: { toolCalls: [call('p1', 'exit_plan_mode', { plan: '1. Write a.txt' })] } });
    server.reply({ turn: { text: ['Staying in plan mode.'] } });
    const file = join(workspace, 'logs', 'plan.jsonl');
    const run = await runCli(['run', 'plan it', '--cwd', workspace, '--mode', 'plan', '--session', file], {
      env,
    });
    expect(run.code).toBe(0);
    const tools = (server.requests[0]!.body as { tools: { function: { name: string } }[] }).tools;
    expect(tools.map((tool) => tool.function.name)).toContain('exit_plan_mode');
    const planned = await readLog(file);
    expect(planned.find((event) => event.type === 'approval.decided')?.data).toMatchObject({
      callId: 'p1',
      outcome: 'deny',
      by: 'headless',
    });

    server.reply({ turn: { toolCalls: [call('w1', 'write_file', { path: 'a.txt', content: 'done' })] } });
    server.reply({ turn: { text: ['Written.'] } });
    const resumed = await runCli(['resume', file, 'go ahead', '--mode', 'accept-edits'], { env });
    expect(resumed.code).toBe(0);
    // The log recorded no mode change, so the resumed agent simply runs in the mode it was given.
    const events = await readLog(file);
    expect(events[0]!.data.config).toMatchObject({ permissionMode: 'plan' });
    expect(events.filter((event) => event.type === 'mode.changed')).toEqual([]);
    expect(await readFile(join(workspace, 'a.txt'), 'utf8')).toBe('done');
  });
});
