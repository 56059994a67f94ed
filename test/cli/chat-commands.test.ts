// The chat's other slash commands and its ways back into a session, in a real pseudo-terminal against the
// local OpenAI-compatible server: /model reopens the session on a new system, /mode switches the open
// agent, /compact summarises, /inspect serves the page, /resume opens another session; --continue and
// --resume <id> come back to the conversation.
import { describe, expect, it } from 'vitest';
import { useCliWorld } from '../support/cli-world.ts';
import type { OpenAIChatServer } from '../support/wire/openai-chat-server.ts';
import { leaveChat as leave, usePtyChats } from './pty-session.ts';

type RequestBody = { model?: string; messages?: unknown[] };
const body = (server: OpenAIChatServer, index: number) => server.requests[index]!.body as RequestBody;
const text = (server: OpenAIChatServer, index: number) => JSON.stringify(body(server, index).messages);

describe('agentchart chat: commands and coming back', () => {
  const world = useCliWorld({ prefix: 'agentchart-chat-commands', state: 'in-home' });
  // `leave` is typed as soon as the answer shows, often before the turn has ended: leaving mid-turn once
  // crashed the chat.
  const chat = usePtyChats(() => world);

  it('/model, /mode, /compact, /inspect and /resume each do what they say', async () => {
    const { server } = world;
    server.reply({ turn: { text: ['First answer.'] } });
    server.reply({ turn: { text: ['Second answer.'] } });
    server.reply({ turn: { text: ['Summary: two questions answered.'] } });
    server.reply({ turn: { text: ['Third answer.'] } });
    const pty = chat([]);
    let at = await pty.waitFor('Type a task.');
    pty.type('first question\r');
    at = await pty.waitFor('First answer.', at);
    at = await pty.waitFor('[mode default · gpt-4.1', at);

    // Another model of the same provider: the session is reopened, and the next request names it.
    pty.type('/model gpt-4.1-mini\r');
    at = await pty.waitFor(/gpt-4\.1-mini .*\(resumed, \d+ events\)/, at);
    pty.type('/mode plan\r');
    at = await pty.waitFor('» mode default → plan (set by the user)', at);
    pty.type('second question\r');
    at = await pty.waitFor('Second answer.', at);
    at = await pty.waitFor('[mode plan · gpt-4.1-mini', at);
    expect(body(server, 1).model).toBe('gpt-4.1-mini');
    expect(text(server, 1)).toContain('First answer.');

    pty.type('/compact keep the questions\r');
    at = await pty.waitFor('Compacted: the context held', at);
    expect(text(server, 2)).toContain('keep the questions');

    pty.type('/inspect\r');
    at = await pty.waitFor(/Inspector: (http:\/\/127\.0\.0\.1:\d+\S*)/, at);
    const url = /Inspector: (http:\/\/127\.0\.0\.1:\d+\S*)/.exec(pty.screen.slice(at))![1]!;
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<title>');

    // The conversation goes on over the summary: the third request has it, not the first question.
    pty.type('third question\r');
    at = await pty.waitFor('Third answer.', at);
    expect(text(server, 3)).toContain('Summary: two questions answered.');
    expect(text(server, 3)).not.toContain('first question');
    const firstId = await leave(pty, at);

    // A second session, then /resume back to the first one by its id.
    server.reply({ turn: { text: ['Other answer.'] } });
    server.reply({ turn: { text: ['Back in the first.'] } });
    const other = chat([]);
    at = await other.waitFor('Type a task.');
    other.type('another topic\r');
    at = await other.waitFor('Other answer.', at);
    // While a turn runs the chat refuses to switch sessions; once idle (the status line) it does.
    at = await other.waitFor('[mode default · gpt-4.1', at);
    other.type(`/resume ${firstId}\r`);
    at = await other.waitFor(new RegExp(`${firstId} \\(resumed, \\d+ events\\)`), at);
    other.type('where were we\r');
    at = await other.waitFor('Back in the first.', at);
    expect(text(server, 5)).toContain('Third answer.');
    expect(text(server, 5)).not.toContain('another topic');
    await leave(other, at);
  }, 90_000);

  it('--continue opens the latest session of the workspace, --resume <id> the one named', async () => {
    const { server } = world;
    server.reply({ turn: { text: ['Answer one.'] } });
    const first = chat([]);
    let at = await first.waitFor('Type a task.');
    first.type('remember the number 41\r');
    at = await first.waitFor('Answer one.', at);
    const firstId = await leave(first, at);

    server.reply({ turn: { text: ['Answer two.'] } });
    const second = chat([]);
    at = await second.waitFor('Type a task.');
    second.type('remember the colour teal\r');
    at = await second.waitFor('Answer two.', at);
    const secondId = await leave(second, at);
    expect(secondId).not.toBe(firstId);

    server.reply({ turn: { text: ['It was teal.'] } });
    const latest = chat(['--continue']);
    at = await latest.waitFor(new RegExp(`${secondId} \\(resumed, \\d+ events\\)`));
    latest.type('what colour?\r');
    at = await latest.waitFor('It was teal.', at);
    expect(text(server, 2)).toContain('remember the colour teal');
    await leave(latest, at);

    server.reply({ turn: { text: ['It was 41.'] } });
    const named = chat(['--resume', firstId]);
    at = await named.waitFor(new RegExp(`${firstId} \\(resumed, \\d+ events\\)`));
    named.type('what number?\r');
    at = await named.waitFor('It was 41.', at);
    expect(text(server, 3)).toContain('remember the number 41');
    expect(text(server, 3)).not.toContain('teal');
    await leave(named, at);
  }, 90_000);
});
