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
    at = await pty.typeAndWait('first question\r', 'First answer.', at);
    at = await pty.waitFor('[mode default · gpt-4.1', at);

    // Another model of the same provider: the session is reopened, and the next request names it.
    at = await pty.typeAndWait('/model gpt-4.1-mini\r', /gpt-4\.1-mini .*\(resumed, \d+ events\)/, at);
    at = await pty.typeAndWait('/mode plan\r', '» mode default → plan (set by the user)', at);
    at = await pty.typeAndWait('second question\r', 'Second answer.', at);
    at = await pty.waitFor('[mode plan · gpt-4.1-mini', at);
    expect(body(server, 1).model).toBe('gpt-4.1-mini');
    expect(text(server, 1)).toContain('First answer.');

    at = await pty.typeAndWait('/compact keep the questions\r', 'Compacted: the context held', at);
    expect(text(server, 2)).toContain('keep the questions');

    at = await pty.typeAndWait('/inspect\r', /Inspector: (http:\/\/127\.0\.0\.1:\d+\S*)/, at);
    const url = /Inspector: (http:\/\/127\.0\.0\.1:\d+\S*)/.exec(pty.screen.slice(at))![1]!;
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<title>');

    // The conversation goes on over the summary: the third request has it, not the first question.
    at = await pty.typeAndWait('third question\r', 'Third answer.', at);
    expect(text(server, 3)).toContain('Summary: two questions answered.');
    expect(text(server, 3)).not.toContain('first question');
    const firstId = await leave(pty, at);

    // A second session, then /resume back to the first one by its id.
    server.reply({ turn: { text: ['Other answer.'] } });
    server.reply({ turn: { text: ['Back in the first.'] } });
    const other = chat([]);
    at = await other.waitFor('Type a task.');
    at = await other.typeAndWait('another topic\r', 'Other answer.', at);
    // While a turn runs the chat refuses to switch sessions; once idle (the status line) it does.
    at = await other.waitFor('[mode default · gpt-4.1', at);
    at = await other.typeAndWait(
      `/resume ${firstId}\r`,
      new RegExp(`${firstId} \\(resumed, \\d+ events\\)`),
      at,
    );
    at = await other.typeAndWait('where were we\r', 'Back in the first.', at);
    expect(text(server, 5)).toContain('Third answer.');
    expect(text(server, 5)).not.toContain('another topic');
    await leave(other, at);
  }, 90_000);

  it('--continue opens the latest session of the workspace, --resume <id> the one named', async () => {
    const { server } = world;
    server.reply({ turn: { text: ['Answer one.'] } });
    const first = chat([]);
    let at = await first.waitFor('Type a task.');
    at = await first.typeAndWait('remember the number 41\r', 'Answer one.', at);
    const firstId = await leave(first, at);

    server.reply({ turn: { text: ['Answer two.'] } });
    const second = chat([]);
    at = await second.waitFor('Type a task.');
    at = await second.typeAndWait('remember the colour teal\r', 'Answer two.', at);
    const secondId = await leave(second, at);
    expect(secondId).not.toBe(firstId);

    server.reply({ turn: { text: ['It was teal.'] } });
    const latest = chat(['--continue']);
    at = await latest.waitFor(new RegExp(`${secondId} \\(resumed, \\d+ events\\)`));
    at = await latest.typeAndWait('what colour?\r', 'It was teal.', at);
    expect(text(server, 2)).toContain('remember the colour teal');
    await leave(latest, at);

    server.reply({ turn: { text: ['It was 41.'] } });
    const named = chat(['--resume', firstId]);
    at = await named.waitFor(new RegExp(`${firstId} \\(resumed, \\d+ events\\)`));
    at = await named.typeAndWait('what number?\r', 'It was 41.', at);
    expect(text(server, 3)).toContain('remember the number 41');
    expect(text(server, 3)).not.toContain('teal');
    await leave(named, at);
  }, 90_000);
});
