// The chat's commands as the terminal shows them, in a real pseudo-terminal against local wire servers:
// `/mode` shows and switches in place (no `session ended`, no second banner), `/cost` splits the cache and
// prices what it knows (Anthropic's list prices) or says the price is unknown, `/compact` gives the tokens
// before and after, and the printed `--resume` command works for a session kept with `--session-dir`.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useCliWorld } from '../support/cli-world.ts';
import { type AnthropicServer, startAnthropicServer } from '../support/wire/anthropic-server.ts';
import type { OpenAIChatServer } from '../support/wire/openai-chat-server.ts';
import { leaveChat as leave, type PtySession, usePtyChats } from './pty-session.ts';

const requestText = (server: OpenAIChatServer, index: number) =>
  JSON.stringify((server.requests[index]!.body as { messages?: unknown }).messages ?? []);
const count = (screen: string, text: string) => screen.split(text).length - 1;

describe('agentchart chat: commands on the terminal', () => {
  const world = useCliWorld({ prefix: 'agentchart-chat-terminal-commands', state: 'in-home' });
  const chat = usePtyChats(() => world);

  it('/mode shows the mode and switches it in place; /cost says the price is unknown; /compact counts', async () => {
    const { server } = world;
    server.reply({
      turn: { text: [`First answer: ${'words '.repeat(800)}`], usage: { input: 4_000, output: 900 } },
    });
    server.reply({ turn: { text: ['Second answer.'], usage: { input: 5_000, output: 20 } } });
    server.reply({
      turn: { text: ['Summary: two questions answered.'], usage: { input: 5_000, output: 9 } },
    });
    const pty = chat([]);
    let at = await pty.waitFor('Type a task.');

    at = await pty.typeAndWait(
      '/mode\r',
      'Mode: default (change it with /mode plan|default|accept-edits|bypass)',
      at,
    );
    at = await pty.typeAndWait('/mode accept-edits\r', '» mode default → accept-edits (set by the user)', at);
    at = await pty.typeAndWait('/mode\r', 'Mode: accept-edits', at);

    at = await pty.typeAndWait('first question\r', 'First answer:', at);
    at = await pty.waitFor('[mode accept-edits · gpt-4.1', at);
    at = await pty.typeAndWait('second question\r', 'Second answer.', at);
    at = await pty.waitFor('[mode accept-edits · gpt-4.1', at);

    // A local server is not OpenAI's own: no list price applies, and /cost says so instead of guessing.
    pty.type('/cost\r');
    at = await pty.waitFor(
      'This session so far: tokens in 9000 · cache write 0 · cache read 0 · out 920 · unknown price for gpt-4.1',
      at,
    );

    pty.type('/compact\r');
    at = await pty.waitFor(
      /Compacted: the context held 5,000 tokens before, about ([\d,]+) after \(estimated/,
      at,
    );
    const after = Number(/about ([\d,]+) after/.exec(pty.screen.slice(at))![1]!.replaceAll(',', ''));
    // The first answer (about 4,800 characters) left the context; the summary is short.
    expect(after).toBeGreaterThan(3_000);
    expect(after).toBeLessThan(4_000);
    await leave(pty, at);

    // The switch happened in the open session: one banner, and the session ended once, on leaving.
    expect(count(pty.screen, 'agentchart: OpenAI-compatible')).toBe(1);
    expect(count(pty.screen, 'session ended')).toBe(1);
    expect(requestText(server, 2)).toContain('Summarise the conversation');
  }, 60_000);

  it('the printed resume command brings back a session kept in --session-dir', async () => {
    const { server, workspace } = world;
    const folder = join(workspace, 'kept-sessions');
    await mkdir(folder);
    server.reply({ turn: { text: ['Noted: 41.'] } });
    server.reply({ turn: { text: ['It was 41.'] } });
    const first = chat(['--session-dir', folder]);
    let at = await first.waitFor('Type a task.');
    at = await first.typeAndWait('remember the number 41\r', 'Noted: 41.', at);
    at = await first.waitFor('[mode default', at);
    at = await first.typeAndWait('/exit\r', /Continue it: (agentchart .*)\n/, at);
    expect(await first.exited).toBe(0);
    const printed = /Continue it: (agentchart .*)\n/.exec(first.screen.slice(at))![1]!;
    const words = printed.split(' ');
    expect(words.slice(0, 4)).toEqual(['agentchart', '--session-dir', folder, '--resume']);

    // The command as printed, from the same folder.
    const again = chat(words.slice(1));
    at = await again.waitFor(/\(resumed, \d+ events\)/);
    at = await again.typeAndWait('what number?\r', 'It was 41.', at);
    expect(requestText(server, 1)).toContain('remember the number 41');
    await leaveWith(again, at, printed);
  }, 60_000);
});

/** Leaves with /exit and expects the same resume command to be printed again. */
async function leaveWith(pty: PtySession, from: number, printed: string): Promise<void> {
  pty.type('/exit\r');
  await pty.waitFor(`Continue it: ${printed}`, from);
  expect(await pty.exited).toBe(0);
}

describe('agentchart chat: /cost with Anthropic list prices', () => {
  let anthropic: AnthropicServer;
  beforeEach(async () => {
    anthropic = await startAnthropicServer();
  });
  afterEach(() => anthropic.close());
  const world = useCliWorld({ prefix: 'agentchart-chat-cost', state: 'in-home' });
  const chat = usePtyChats(() => ({
    workspace: world.workspace,
    env: { ...world.env, ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: anthropic.url },
  }));

  it('splits the cache and estimates the price from the prices the session recorded', async () => {
    anthropic.reply({ turn: { text: ['Cached.'], usage: { input: 50, cacheWrite: 2_000, output: 10 } } });
    const pty = chat([]);
    let at = await pty.waitFor('Type a task.');
    at = await pty.typeAndWait('one question\r', 'Cached.', at);
    at = await pty.waitFor('[mode default · claude-sonnet-4-5', at);
    pty.type('/cost\r');
    // claude-sonnet-4-5: $3 in, $3.75 cache write (5 minutes), $15 out per million tokens.
    at = await pty.waitFor(
      'This session so far: tokens in 50 · cache write 2000 · cache read 0 · out 10 · ≈ $0.0078 · 0% of input read from cache',
      at,
    );
    await leave(pty, at);
  }, 60_000);
});
