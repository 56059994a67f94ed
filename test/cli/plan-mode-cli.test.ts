// Plan mode through the CLI: without a terminal nobody can accept a plan, so it is denied and the session
// stays in plan mode; `resume --mode` resumes it in the mode given and the edit then runs.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseLogText } from '../../src/session/log-text.ts';
import { type OpenAIChatServer, startOpenAIChatServer } from '../support/wire/openai-chat-server.ts';
import { runCli } from './cli-harness.ts';

const call = (id: string, name: string, input: unknown) => ({
  id,
  name,
  argumentPieces: [JSON.stringify(input)],
});

describe('plan mode in the CLI', () => {
  let server: OpenAIChatServer;
  let workspace: string;
  let env: Record<string, string>;
  beforeEach(async () => {
    server = await startOpenAIChatServer();
    workspace = await mkdtemp(join(tmpdir(), 'agentchart-plan-cli-'));
    env = {
      HOME: workspace,
      ANTHROPIC_API_KEY: '',
      OPENAI_API_KEY: 'k',
      OPENAI_BASE_URL: `${server.url}/v1`,
    };
  });
  afterEach(async () => {
    await server.close();
    await rm(workspace, { recursive: true, force: true });
  });

  it('denies a plan headless, and resume --mode resumes in that mode so the edit runs', async () => {
    server.reply({ turn: { toolCalls: [call('p1', 'exit_plan_mode', { plan: '1. Write a.txt' })] } });
    server.reply({ turn: { text: ['Staying in plan mode.'] } });
    const file = join(workspace, 'logs', 'plan.jsonl');
    const run = await runCli(['run', 'plan it', '--cwd', workspace, '--mode', 'plan', '--session', file], {
      env,
    });
    expect(run.code).toBe(0);
    const tools = (server.requests[0]!.body as { tools: { function: { name: string } }[] }).tools;
    expect(tools.map((tool) => tool.function.name)).toContain('exit_plan_mode');
    const planned = parseLogText(await readFile(file, 'utf8'), file).events;
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
    const events = parseLogText(await readFile(file, 'utf8'), file).events;
    expect(events[0]!.data.config).toMatchObject({ permissionMode: 'plan' });
    expect(events.filter((event) => event.type === 'mode.changed')).toEqual([]);
    expect(await readFile(join(workspace, 'a.txt'), 'utf8')).toBe('done');
  });
});
