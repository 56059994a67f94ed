// The chat's terminal in a real pseudo-terminal against the local OpenAI-compatible server: one echo per
// task, a live line while a tool runs, notices on lines of their own, prompts wrapped between words at 40
// columns, "no change" for an identical write, and an Up-arrow history without approval answers.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sessionLogOf, useCliWorld } from '../support/cli-world.ts';
import type { OpenAIChatServer } from '../support/wire/openai-chat-server.ts';
import { leaveChat as leave, usePtyChats } from './pty-session.ts';

const call = (id: string, name: string, input: unknown) => ({
  id,
  name,
  argumentPieces: [JSON.stringify(input)],
});
/** The user messages of one recorded request, leaving out the environment block. */
const userMessages = (server: OpenAIChatServer, index: number) =>
  (server.requests[index]!.body as { messages: { role: string; content: unknown }[] }).messages
    .filter((message) => message.role === 'user' && !String(message.content).startsWith('# Environment'))
    .map((message) => message.content);
/** How often `text` is on the screen. */
const count = (screen: string, text: string) => screen.split(text).length - 1;

describe('agentchart chat: the terminal', () => {
  const world = useCliWorld({ prefix: 'agentchart-chat-terminal', state: 'in-home' });
  const chat = usePtyChats(() => world);

  it('at 40 columns: one echo per task, a live tool line, wrapped choices, no change, Esc apart, history of tasks', async () => {
    const { server, workspace } = world;
    await writeFile(join(workspace, 'same.txt'), 'same\n');
    // The command waits for a file the test writes once the live line is on the screen: no timing margin.
    const command = 'while [ ! -f go ]; do sleep 0.05; done; echo went';
    server.reply({ turn: { toolCalls: [call('c1', 'bash', { command })] } });
    server.reply({
      turn: { toolCalls: [call('c2', 'write_file', { path: 'same.txt', content: 'same\n' })] },
    });
    server.reply({ turn: { text: ['Done with the first.'] } });
    server.reply({ turn: { text: ['Streaming the second'], ending: 'hang' } });
    server.reply({ turn: { text: ['Again.'] } });
    const pty = chat([], { columns: 40 });
    let at = await pty.waitFor('Type a task.');

    at = await pty.typeAndWait('first task\r', 'Allow this bash call?', at);
    const question = await pty.waitFor('> ', at);
    // Whole choices, each line within 40 columns, no word split between two lines. No prefix is
    // offered: `bash(echo went:*)` would not cover the loop, and the same line would be asked again.
    expect(pty.screen.slice(at, question).split('\n').slice(1, -1)).toEqual([
      '  [y] allow once',
      '  [a] allow bash like this for the',
      '      session',
      '  [n] deny (n <reason>: the model reads',
      '      the reason)',
    ]);
    pty.type('y\r');
    // The live line: a spinner, the tool, its command and the seconds it has run.
    at = await pty.waitFor(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] bash while \[ ! -f go \].* · \d+s/, at);
    await writeFile(join(workspace, 'go'), '');
    at = await pty.waitFor('← bash ok', at);

    // Writing what the file holds already: said in words, not as a diff of two headers.
    at = await pty.waitFor(
      'write_file would leave same.txt as it\n  is: no change (content identical)\n',
      at,
    );
    expect(pty.screen.slice(at).split('\n')[2]).toBe('Allow this write_file call?');
    at = await pty.waitFor('Allow this write_file call?', at);
    at = await pty.typeAndWait('yes\r', 'Done with the first.', at);
    at = await pty.waitFor('[mode default', at);
    // Typed once, shown once: no `» queued followup:` and no `› followup:` after the typed line.
    expect(count(pty.screen, 'first task')).toBe(1);
    expect(pty.screen).not.toContain('queued followup');

    // Esc while the answer streams: the notice starts a line of its own.
    at = await pty.typeAndWait('second task\r', 'Streaming the second', at);
    at = await pty.typeAndWait('\u001b', /Streaming the second\n\(Esc: cancelling the turn/, at);
    at = await pty.waitFor('turn 2 ended: canceled', at);
    at = await pty.waitFor('[mode default', at);

    // Up twice: the task before the last one. Had the answers `y` and `yes` been kept, it would be `yes`.
    at = await pty.typeAndWait('\u001b[A\u001b[A\r', 'Again.', at);
    expect(userMessages(server, 4)).toEqual(['first task', 'second task', 'first task']);
    await leave(pty, at);
  }, 60_000);

  it('a pasted block of two lines is one task, with its newline', async () => {
    const { server } = world;
    server.reply({ turn: { text: ['Got both lines.'] } });
    const pty = chat([]);
    let at = await pty.waitFor('Type a task.');
    at = await pty.typeAndWait('\u001b[200~line one\nline two\u001b[201~', '[pasted text #1: 2 lines]', at);
    at = await pty.typeAndWait('\r', 'Got both lines.', at);
    at = await pty.waitFor('[mode default', at);
    await leave(pty, at);
    expect(server.requests).toHaveLength(1);
    expect(userMessages(server, 0)).toEqual(['line one\nline two']);
    expect(pty.screen).not.toContain('(steer:');
  }, 60_000);

  it('a task typed before the session is open runs once it is open, not a crash', async () => {
    const { server } = world;
    server.reply({ turn: { text: ['Early bird.'] } });
    const pty = chat([]);
    // Typed at once: the chat reads it while (or before) it opens its session.
    pty.type('early task\r');
    let at = await pty.waitFor('Early bird.');
    at = await pty.waitFor('[mode default', at);
    await leave(pty, at);
    expect(userMessages(server, 0)).toEqual(['early task']);
  }, 60_000);

  it('SIGTERM idle and SIGHUP mid-turn leave as /exit does, and turn bracketed paste off', async () => {
    const { server } = world;
    const enable = '\u001b[?2004h';
    const disable = '\u001b[?2004l';
    const idle = chat([]);
    await idle.waitFor('Type a task.');
    expect(idle.output).toContain(enable);
    await idle.signalCli('SIGTERM');
    await idle.waitFor(/Continue it: agentchart --resume \S+/);
    expect(await idle.exited).toBe(143);
    expect(idle.output.slice(idle.output.indexOf(enable))).toContain(disable);

    // A command that waits for a file nobody writes: the turn is still running when the signal comes.
    const command = 'while [ ! -f never ]; do sleep 0.05; done';
    server.reply({ turn: { toolCalls: [call('c1', 'bash', { command })] } });
    const busy = chat([]);
    let at = await busy.waitFor('Type a task.');
    at = await busy.typeAndWait('wait\r', 'Allow this bash call?', at);
    at = await busy.waitFor('> ', at);
    at = await busy.typeAndWait('y\r', /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] bash while/, at);
    await busy.signalCli('SIGHUP');
    await busy.waitFor(/Continue it: agentchart --resume \S+/, at);
    expect(await busy.exited).toBe(129);
    expect(busy.output.slice(busy.output.indexOf(enable))).toContain(disable);
    // The session was closed, not cut: its log ends with the cancelled turn and `session.end`.
    const log = (await readFile(sessionLogOf(busy.screen), 'utf8')).trim().split('\n');
    const types = log.map((text) => (JSON.parse(text) as { type: string }).type);
    expect(types.slice(-2)).toEqual(['turn.end', 'session.end']);
    expect(JSON.parse(log.at(-2)!).data.reason).toBe('canceled');
  }, 60_000);
});
