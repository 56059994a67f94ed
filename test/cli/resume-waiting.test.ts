// `agentchart resume` on a session that stopped while it waited for the person's approval: the pending
// question is shown first, asked again on the terminal, and the answer finishes the turn (or, with nobody
// at a terminal, the call is denied as any headless ask is).
import { copyFile, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAgentSystem } from '../../src/runtime/create-agent-system.ts';
import { fileStore } from '../../src/session/file-store.ts';
import { readLog } from '../../src/session/log-text.ts';
import { codingTools } from '../../src/tools/coding-tools.ts';
import { useCliWorld } from '../support/cli-world.ts';
import { assertCallsPaired, counterIds, routedModel, tickingClock, until } from '../support/crash-kit.ts';
import { fakeStdin, runCli } from './cli-harness.ts';

const writeCall = { id: 'w1', name: 'write_file', input: { path: 'x.txt', content: 'hello' } };

/**
 * Runs an agent until it waits for approval of `write_file x.txt`, and copies its session file as it is on
 * disk at that moment into `sessions` (what a process killed right then leaves behind).
 */
async function waitingSessionFile(workspace: string, sessions: string): Promise<string> {
  const live = await mkdtemp(join(tmpdir(), 'agentchart-waiting-live-'));
  const system = createAgentSystem({
    model: routedModel({ 'write x.txt': [{ text: 'Writing it.', toolCalls: [writeCall] }] }),
    tools: codingTools(),
    store: fileStore(live),
    cwd: workspace,
    ids: counterIds('w'),
    clock: tickingClock(),
    projectInstructions: false,
    permissionMode: 'default',
    approve: 'manual',
  });
  const agent = await system.createAgent({ id: 'waiting' });
  agent.run('write x.txt').catch(() => undefined);
  await until(() => agent.snapshot().children.length > 0 && agent.pendingApprovals().length === 1, 'the ask');
  // The question is asked only once it is durable: wait for the flush that comes before it to land.
  await until(() => JSON.stringify(agent.snapshot()).includes('"asking"'), 'the asking state');
  await mkdir(sessions, { recursive: true });
  const file = join(sessions, 'waiting.jsonl');
  await copyFile(join(live, 'waiting.jsonl'), file);
  await system.dispose();
  await rm(live, { recursive: true, force: true });
  return file;
}

describe('agentchart resume of a session left waiting for approval', () => {
  const world = useCliWorld({ prefix: 'agentchart-resume-waiting', home: 'unset' });

  it('shows the pending question first, asks it again, and the answer finishes the turn', async () => {
    const { server, workspace, env } = world;
    const file = await waitingSessionFile(workspace, join(workspace, 'sessions'));
    const before = await readLog(file);
    expect(before.map((event) => event.type).slice(-3)).toEqual([
      'assistant.message',
      'tool.call',
      'approval.asked',
    ]);
    server.reply({ turn: { text: ['Written.'] } });
    const stdin = fakeStdin(true);
    const run = await runCli(['resume', file], { env, stdin, answers: ['y'] });
    expect(run.code).toBe(0);
    const out = run.stdout.split('\n');
    expect(out.slice(0, 2)).toEqual([
      `agentchart: resuming waiting (${before.length} events) with OpenAI-compatible gpt-4.1 at ${server.url}/v1 (Chat Completions, key from OPENAI_API_KEY)`,
      'This session was waiting for your approval of `write_file x.txt` — allow once / for the session / a prefix (commands) / deny with a reason',
    ]);
    expect(run.stderr.split('\n').filter((text) => text.startsWith('Allow '))).toEqual([
      'Allow this write_file call?',
    ]);
    expect(out).toContain('Written.');
    expect(await readFile(join(workspace, 'x.txt'), 'utf8')).toBe('hello');
    const after = await readLog(file);
    expect(after.slice(0, before.length)).toEqual(before);
    expect(
      after.filter((event) => event.type === 'assistant.message').map((event) => event.data.text),
    ).toEqual(['Writing it.', 'Written.']);
    expect(
      after.slice(before.length).map((event) => [event.type, event.data.callId ?? event.data.outcome ?? '']),
    ).toEqual([
      // The resumed process says what it runs with, then continues the turn that was left waiting.
      ['session.resumed', ''],
      ['approval.asked', 'w1'],
      ['approval.decided', 'w1'],
      ['tool.started', 'w1'],
      ['tool.result', 'w1'],
      ['step.end', ''],
      ['step.start', ''],
      ['assistant.message', ''],
      ['step.end', ''],
      ['turn.end', ''],
      ['session.end', ''],
    ]);
    expect(after.find((event) => event.type === 'approval.decided')?.data).toMatchObject({
      outcome: 'allow',
      by: 'host',
    });
    assertCallsPaired(after, 'resumed');
  });

  it('with nobody at a terminal says so, and the call is denied as a headless ask is', async () => {
    const { server, workspace, env } = world;
    const file = await waitingSessionFile(workspace, join(workspace, 'sessions'));
    server.reply({ turn: { text: ['Not allowed, then.'] } });
    const run = await runCli(['resume', file], { env });
    expect(run.code).toBe(0);
    expect(run.stdout.split('\n')[1]).toBe(
      'This session was waiting for your approval of `write_file x.txt` — nobody can answer here, so mode default decides (a call that still needs approval is denied)',
    );
    const after = await readLog(file);
    expect(after.filter((event) => event.type === 'approval.decided').map((event) => event.data)).toEqual([
      expect.objectContaining({ callId: 'w1', outcome: 'deny', by: 'headless' }),
    ]);
    expect(after.filter((event) => event.type === 'tool.result').map((event) => event.data.outcome)).toEqual([
      'denied',
    ]);
    assertCallsPaired(after, 'resumed headless');
  });
});
