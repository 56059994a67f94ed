import { access, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LiveEvent } from '../../src/actors/live-event.ts';
import { readLog } from '../../src/session/log-text.ts';
import type { LogEvent } from '../../src/session/types.ts';
import { wireToolCall as call, useCliWorld } from '../support/cli-world.ts';
import { type CliRun, fakeStdin, runCli, testSessionsFolder } from './cli-harness.ts';

const parseLines = <T>(text: string): T[] =>
  text
    .split('\n')
    .filter((entry) => entry !== '')
    .map((entry) => JSON.parse(entry) as T);
const sessionLogOf = (run: CliRun) => /^Session log: (.+\.jsonl)$/m.exec(run.stderr + run.stdout)?.[1];

describe('agentchart run and resume against a local OpenAI-compatible server', () => {
  const world = useCliWorld({ prefix: 'agentchart-run', home: 'unset' });

  const decisions = (log: LogEvent[]) =>
    log
      .filter((event) => event.type === 'approval.decided')
      .map((event) => [event.data.outcome, event.data.by]);

  it('headless: says once that nobody can approve, denies the edit, and records the session', async () => {
    const { server, workspace, env } = world;
    server.reply({ turn: { toolCalls: [call('c1', 'write_file', { path: 'a.txt', content: 'hi' })] } });
    server.reply({ turn: { text: ['I was not allowed to write.'] } });
    const run = await runCli(['run', 'write a.txt', '--cwd', workspace], { env });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe(
      'agentchart: stdin is not a terminal, so nobody can approve tool calls: edits and commands will be denied ' +
        '(use --yes for accept-edits or --mode bypass to allow them).\n',
    );
    const out = run.stdout.split('\n');
    expect(out[0]).toBe(
      `agentchart: OpenAI-compatible gpt-4.1 at ${server.url}/v1 (Chat Completions, key from OPENAI_API_KEY) · mode default · ${workspace}`,
    );
    expect(out).toContain('→ write_file a.txt');
    expect(out.some((entry) => entry.startsWith('  write_file denied (by headless)'))).toBe(true);
    expect(out).toContain('I was not allowed to write.');
    const file = sessionLogOf(run)!;
    expect(file.startsWith(testSessionsFolder(workspace))).toBe(true);
    const log = await readLog(file);
    expect(decisions(log)).toEqual([['deny', 'headless']]);
    await expect(access(join(workspace, 'a.txt'))).rejects.toThrow();
  });

  it('on a terminal asks before each call and follows the answers', async () => {
    const { server, workspace, env } = world;
    server.reply({ turn: { toolCalls: [call('c1', 'write_file', { path: 'a.txt', content: 'first' })] } });
    server.reply({ turn: { toolCalls: [call('c2', 'bash', { command: 'echo from-bash' })] } });
    server.reply({ turn: { text: ['Done.'] } });
    const stdin = fakeStdin(true);
    // Typed ahead, before any question: discarded, so it answers nothing.
    stdin.write('y\n');
    const run = await runCli(['run', 'try things', '--cwd', workspace], {
      env,
      stdin,
      answers: ['n', '', 'y'],
    });
    expect(run.code).toBe(0);
    const prompts = run.stderr.split('\n').filter((entry) => entry.startsWith('Allow '));
    expect(prompts).toEqual(['Allow this write_file call?', 'Allow this bash call?']);
    expect(run.stderr).toContain('write_file wants to change a.txt');
    expect(run.stderr).toContain('  │ +first');
    expect(run.stderr).toContain('  │ echo from-bash');
    const log = await readLog(sessionLogOf(run)!);
    expect(decisions(log)).toEqual([
      ['deny', 'host'],
      ['allow', 'host'],
    ]);
    const results = log.filter((event) => event.type === 'tool.result').map((event) => event.data.outcome);
    expect(results).toEqual(['denied', 'ok']);
  });

  it('a rejected key ends the turn with a plain message and exit code 1', async () => {
    const { server, workspace, env } = world;
    server.reply({ httpError: { status: 401, message: 'Incorrect API key provided' } });
    const run = await runCli(['run', 'anything', '--cwd', workspace, '--mode', 'bypass'], { env });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'agentchart: the model failed: the API key was rejected (401): check OPENAI_API_KEY [model_error]\n',
    );
    expect(run.stdout).toContain('Turn 1 ended: model_error');
  });

  it('--json and --session write NDJSON and the named log; resume continues it', async () => {
    const { server, workspace, env } = world;
    server.reply({ turn: { text: ['First answer.'] } });
    const file = join(workspace, 'logs', 'mine.jsonl');
    const run = await runCli(['run', 'hello', '--cwd', workspace, '--json', '--session', file], { env });
    expect(run.code).toBe(0);
    const live = parseLines<LiveEvent>(run.stdout);
    // The first line is session.start (seq 0), the last the run's result.
    expect(live[0]).toMatchObject({ type: 'log', event: { type: 'session.start', seq: 0 } });
    const result = live.at(-1) as unknown as Record<string, unknown>;
    expect(result).toEqual({
      type: 'result',
      reason: 'completed',
      text: 'First answer.',
      usage: expect.objectContaining({ inputTokens: expect.any(Number), outputTokens: expect.any(Number) }),
      turn: 1,
      denied: [],
      sessionId: 'mine',
      durationMs: expect.any(Number),
    });
    expect(live.filter((event) => event.type === 'log').map((event) => event.event.type)).toEqual([
      'session.start',
      'inbox.queued',
      'turn.start',
      'inbox.claimed',
      'user.message',
      // The CLI tells the model where it works (docs/instructions-and-skills.md, "Environment").
      'environment',
      'step.start',
      'assistant.message',
      'step.end',
      'turn.end',
      'session.end',
    ]);
    expect(sessionLogOf(run)).toBe(file);

    const idle = await runCli(['resume', file], { env });
    expect(idle.code).toBe(2);
    expect(idle.stderr).toBe(
      `agentchart: session mine has no unanswered input; give the next message: agentchart resume ${file} "<next message>" [usage]\n`,
    );

    const again = await runCli(['run', 'hello', '--cwd', workspace, '--session', file], { env });
    expect(again).toEqual({
      code: 2,
      stdout: '',
      stderr: `agentchart: ${file} already exists; continue it with: agentchart resume ${file} "<next message>" [usage]\n`,
    });

    server.reply({ turn: { text: ['Second answer.'] } });
    const resumed = await runCli(['resume', file, 'and again'], { env });
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain('Second answer.');
    const log = await readLog(file);
    expect(
      log.filter((event) => event.type === 'turn.end').map((event) => [event.turn, event.data.reason]),
    ).toEqual([
      [1, 'completed'],
      [2, 'completed'],
    ]);
    const lastRequest = server.requests.at(-1)!.body.messages as { role: string; content: unknown }[];
    // The environment block is a user message where it was logged (once: the workspace did not change).
    const isBlock = (content: unknown) => String(content).startsWith('# Environment\n');
    const conversation = lastRequest.filter((message) => message.role !== 'system');
    expect(conversation.filter((message) => isBlock(message.content))).toHaveLength(1);
    expect(
      conversation.filter((message) => !isBlock(message.content)).map((message) => message.content),
    ).toEqual(['hello', 'First answer.', 'and again']);
  });

  it('resume without a message answers input that was queued but never answered', async () => {
    const { server, workspace, env } = world;
    const file = join(workspace, 'queued.jsonl');
    const config = { provider: 'openai', model: 'gpt-recorded', cwd: workspace, permissionMode: 'default' };
    const recorded = [
      { v: 1, seq: 0, ts: 1, type: 'session.start', data: { agentId: 'queued', config } },
      {
        v: 1,
        seq: 1,
        ts: 2,
        type: 'inbox.queued',
        data: { id: 'q1', channel: 'followup', message: 'left over' },
      },
    ];
    await writeFile(file, recorded.map((event) => `${JSON.stringify(event)}\n`).join(''));
    server.reply({ turn: { text: ['Answered at last.'] } });
    const run = await runCli(['resume', file], { env });
    expect(run.code).toBe(0);
    expect(run.stdout.split('\n')[0]).toBe(
      `agentchart: resuming queued (2 events; 1 queued message(s) run first) with OpenAI-compatible gpt-recorded at ${server.url}/v1 (Chat Completions, key from OPENAI_API_KEY)`,
    );
    expect(run.stdout).toContain('Turn 1 ended: completed');
    expect(server.requests[0]!.body.model).toBe('gpt-recorded');
    const log = await readLog(file);
    expect(log.filter((event) => event.type === 'user.message').map((event) => event.data.content)).toEqual([
      'left over',
    ]);
  });

  it('job runs its agents headless even on a terminal: nobody is asked, no warning, logs in the workspace', async () => {
    const { server, workspace, env } = world;
    server.reply({ turn: { toolCalls: [call('c1', 'write_file', { path: 'a.txt', content: 'hi' })] } });
    server.reply({ turn: { text: ['Not allowed to write.'] } });
    await writeFile(join(workspace, 'jobs.json'), JSON.stringify({ tasks: [{ prompt: 'write a.txt' }] }));
    const run = await runCli(['job', 'jobs.json', '--cwd', workspace], {
      env,
      cwd: workspace,
      stdin: fakeStdin(true),
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    const sessions = await readdir(testSessionsFolder(workspace));
    const logs = sessions.filter((name) => name.endsWith('.jsonl'));
    expect(logs).toHaveLength(1);
    const sessionId = logs[0]!.slice(0, -'.jsonl'.length);
    expect(run.stdout.split('\n')).toEqual([
      'agentchart: job jobs.json: 1 task(s), 4 at a time',
      `[1/1] task 0 completed · session ${sessionId} · 1 call denied (write_file) · Not allowed to write.`,
      expect.stringMatching(
        /^agentchart: 1 task\(s\): 1 completed · 1 call denied \(write_file\) in 1 task\(s\) · \d+ input \/ \d+ output tokens$/,
      ),
      '',
    ]);
    const log = await readLog(join(testSessionsFolder(workspace), logs[0]!));
    expect(decisions(log)).toEqual([['deny', 'headless']]);
  });
});
