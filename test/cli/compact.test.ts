// `agentchart compact FILE` against a local OpenAI-compatible server: the real SDK, the real runtime, a
// session file made by `run` and `resume`.
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { readLog } from '../../src/session/log-text.ts';
import { summaryPrefix } from '../../src/session/projection.ts';
import { useCliWorld } from '../support/cli-world.ts';
import type { OpenAIChatServer } from '../support/wire/openai-chat-server.ts';
import { runCli } from './cli-harness.ts';

describe('agentchart compact FILE', () => {
  let server: OpenAIChatServer;
  let workspace: string;
  let env: Record<string, string>;
  let file: string;

  useCliWorld(
    { prefix: 'agentchart-compact', home: 'unset' },
    (world) => ({ server, workspace, env } = world),
  );
  beforeEach(async () => {
    file = join(workspace, 'session.jsonl');
    // Three turns, so the first one is older than the two kept word for word.
    server.reply({ turn: { text: ['One.'] } });
    expect((await runCli(['run', 'first', '--cwd', workspace, '--session', file], { env })).code).toBe(0);
    for (const [message, answer] of [
      ['second', 'Two.'],
      ['third', 'Three.'],
    ]) {
      server.reply({ turn: { text: [answer!] } });
      expect((await runCli(['resume', file, message!], { env })).code).toBe(0);
    }
  });

  it('summarises the older turns, logs a manual compaction, and the next request shows the summary', async () => {
    const before = await readLog(file);
    server.reply({ turn: { text: ['They said first; I said One.'] } });
    const run = await runCli(['compact', file, '--instructions', 'Keep the numbers.'], { env });
    expect(run.code).toBe(0);
    const log = await readLog(file);
    const compaction = log.find((event) => event.type === 'compaction')!;
    expect(compaction.data).toMatchObject({ summary: 'They said first; I said One.', trigger: 'manual' });
    const [from, to] = compaction.data.replaces as [number, number];
    expect(run.stdout.split('\n')).toEqual([
      expect.stringMatching(
        /^agentchart: compacting session \(\d+ events\) with OpenAI-compatible gpt-4\.1 at /,
      ),
      expect.stringMatching(
        new RegExp(
          `^Compacted events ${from}–${to} \\(the context held \\d+ tokens\\) into a summary of 28 characters\\.$`,
        ),
      ),
      '',
    ]);
    // The raw events stay: the log only grew.
    expect(log.slice(0, before.length)).toEqual(before);
    const summarising = server.requests.at(-1)!.body as { tools?: unknown; messages: { content: string }[] };
    // The conversation's own tools and messages come first (the cached prefix), then the ask.
    const lastStep = server.requests.at(-2)!.body as { tools?: unknown; messages: unknown[] };
    expect(summarising.tools).toEqual(lastStep.tools);
    expect(JSON.stringify(summarising.messages.at(-1))).toContain('Keep the numbers.');

    server.reply({ turn: { text: ['Four.'] } });
    expect((await runCli(['resume', file, 'fourth'], { env })).code).toBe(0);
    const next = server.requests.at(-1)!.body.messages as { role: string; content: string }[];
    const user = next.filter((message) => message.role === 'user').map((message) => message.content);
    // The compaction hid the environment block, so the next turn logged it again, after its prompt.
    expect(user.at(-1)?.startsWith('# Environment\n')).toBe(true);
    expect(user.slice(0, -1)).toEqual([
      `${summaryPrefix}They said first; I said One.`,
      'second',
      'third',
      'fourth',
    ]);
  });

  it('takes a session id of the workspace, as resume does', async () => {
    // A session the CLI kept in its own folder (not named with --session), found by its id.
    server.reply({ turn: { text: ['Stored.'] } });
    const first = await runCli(['run', 'remember this', '--cwd', workspace, '--json'], { env });
    expect(first.code).toBe(0);
    const { sessionId } = JSON.parse(first.stdout.trim().split('\n').at(-1)!) as { sessionId: string };
    server.reply({ turn: { text: ['Noted.'] } });
    expect((await runCli(['resume', sessionId, 'and this', '--cwd', workspace], { env })).code).toBe(0);
    server.reply({ turn: { text: ['Remembered two things.'] } });
    const run = await runCli(['compact', sessionId, '--cwd', workspace, '--json'], { env });
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
    expect(result).toMatchObject({ type: 'result', compacted: true, summary: 'Remembered two things.' });
    expect(String(result.sessionFile)).toContain(sessionId);
  });

  it('prints the result as JSON with --json, and exits 1 when the model fails', async () => {
    server.reply({ httpError: { status: 400, message: 'this model cannot summarise' } });
    const run = await runCli(['compact', file, '--json'], { env });
    expect(run.code).toBe(1);
    const result = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
    expect(result).toMatchObject({
      type: 'result',
      sessionFile: file,
      compacted: false,
      reason: 'model_error',
    });
    expect((await readLog(file)).filter((event) => event.type === 'compaction')).toEqual([]);
  });
});
