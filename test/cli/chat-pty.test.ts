import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sessionsFolder } from '../../src/cli/session-folders.ts';
import { readLog } from '../../src/session/log-text.ts';
import { wireToolCall as call, useCliWorld } from '../support/cli-world.ts';
import type { OpenAIChatServer } from '../support/wire/openai-chat-server.ts';
import { usePtyChats } from './pty-session.ts';

/** The text of every message of one recorded request, joined. */
const requestText = (server: OpenAIChatServer, index: number) =>
  JSON.stringify((server.requests[index]!.body as { messages?: unknown }).messages ?? []);

describe('agentchart chat in a real pseudo-terminal', () => {
  const world = useCliWorld({ prefix: 'agentchart-chat' });
  const chat = usePtyChats(() => world);

  it('runs a task, steers it, ignores a typed-ahead y, allows a prefix, denies with a reason, runs /cost, cancels with Esc and leaves with Ctrl-C twice', async () => {
    const { server, workspace, home } = world;
    server.reply({ turn: { toolCalls: [call('c1', 'bash', { command: 'sleep 2' })] } });
    server.reply({ turn: { toolCalls: [call('c2', 'bash', { command: 'echo one' })] } });
    server.reply({ turn: { toolCalls: [call('c3', 'bash', { command: 'echo one more' })] } });
    server.reply({ turn: { toolCalls: [call('c4', 'write_file', { path: 'a.txt', content: 'hello\n' })] } });
    server.reply({ turn: { text: ['Done with the first task.'] } });
    server.reply({ turn: { text: ['Thinking about the second'], ending: 'hang' } });
    const pty = chat(['--allow', 'bash(sleep:*)']);
    await pty.waitFor('Type a task.');

    // A task; while its `sleep 2` runs (allowed by --allow), a line steers and a `y` is typed without Enter.
    pty.type('first task\r');
    let at = await pty.waitFor('→ bash sleep 2');
    at = await pty.typeAndWait('please also say hi\r', '(steer: the model reads it at its next step)', at);
    pty.type('y');

    // The question shows the whole command; the typed-ahead `y` was discarded, so Enter alone is no answer.
    at = await pty.waitFor('Allow this bash call?', at);
    expect(pty.screen.slice(at - 200)).toContain('bash wants to run:');
    expect(pty.screen).toContain('[p] allow the prefix bash(echo one:*) for the session');
    at = await pty.typeAndWait('\r', 'Please answer y, a, p or n.', at);
    pty.type('p\r');

    // `echo one more` is covered by the prefix rule: no question. The write is shown as a diff, then denied.
    at = await pty.waitFor('write_file wants to change a.txt', at);
    expect(pty.screen.slice(at)).toContain('+hello');
    await pty.waitFor('Allow this write_file call?', at);
    at = await pty.typeAndWait('n not now, ask me tomorrow\r', 'Done with the first task.', at);
    at = await pty.waitFor('[mode default · gpt-4.1', at);

    at = await pty.typeAndWait('/cost\r', 'This session so far: tokens in', at);

    // A second task whose stream hangs: Esc cancels the turn.
    at = await pty.typeAndWait('second task\r', 'Thinking about the second', at);
    at = await pty.typeAndWait('\u001b', 'turn 2 ended: canceled', at);

    at = await pty.typeAndWait('\u0003', 'Ctrl-C again to leave', at);
    pty.type('\u0003');
    await pty.waitFor('Session log:', at);
    expect(await pty.exited).toBe(0);

    // What the model read: the steer in the step after `sleep 2`, the denial's reason in the write's result.
    expect(server.requests).toHaveLength(6);
    expect(requestText(server, 1)).toContain('please also say hi');
    expect(requestText(server, 4)).toContain('Permission denied: not now, ask me tomorrow');
    // The session went to the state folder under HOME, not into the workspace.
    const sessions = sessionsFolder(workspace, { HOME: home });
    await expect(readdir(join(workspace, '.agentchart'))).rejects.toThrow();
    const [file] = await readdir(sessions);
    const log = await readLog(join(sessions, file!));
    const decisions = log
      .filter((event) => event.type === 'approval.decided')
      .map((event) => event.data as { outcome: string; by: string; reason?: string; rule?: string });
    expect(decisions).toEqual([
      { callId: 'c1', outcome: 'allow', by: 'rule', reason: 'allowed by rule bash(sleep:*)' },
      { callId: 'c2', outcome: 'allow_session', by: 'host', rule: 'bash(echo one:*)' },
      {
        callId: 'c3',
        outcome: 'allow',
        by: 'session',
        reason: 'allowed for this session by rule bash(echo one:*)',
      },
      { callId: 'c4', outcome: 'deny', by: 'host', reason: 'not now, ask me tomorrow' },
    ]);
    expect(log.at(-1)?.type).toBe('session.end');
  }, 60_000);
});
