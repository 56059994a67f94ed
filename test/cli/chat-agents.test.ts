// `/agents` in the chat, in a real pseudo-terminal against the local OpenAI-compatible server: without
// --background-agents the chat says it offers none; with it, the model starts two children that report,
// `/agents` lists them with their status and results (a long one cut), `/agents <id>` shows one in full,
// and a session resumed later offers the tools again (its log says it was started with them).
import { describe, expect, it } from 'vitest';
import { type CliWorld, useCliWorld, wireToolCall } from '../support/cli-world.ts';
import type { RecordedRequest } from '../support/wire/fake-server.ts';
import type { WireReply } from '../support/wire/reply.ts';
import { leaveChat, usePtyChats } from './pty-session.ts';

const longResult = `B counted: ${Array.from({ length: 60 }, (_, i) => `item${i}`).join(', ')}. The end.`;

type WireMessage = { role: string; content?: unknown };

/** Answers each agent by its task (a child's prompt, or the parent's first line), so order does not matter. */
function answer(request: RecordedRequest): WireReply | undefined {
  const messages = (request.body.messages ?? []) as WireMessage[];
  const said = (role: string) =>
    messages.filter((message) => message.role === role).map((message) => JSON.stringify(message.content));
  const users = said('user');
  if (users.some((text) => text.includes('worker A'))) return { turn: { text: ['A found: 42'] } };
  if (users.some((text) => text.includes('worker B'))) return { turn: { text: [longResult] } };
  if (!users.some((text) => text.includes('supervise'))) return undefined;
  if (said('assistant').length === 0)
    return {
      turn: {
        toolCalls: [
          wireToolCall('s1', 'spawn_agent', { prompt: 'worker A', description: 'Finds the answer' }),
          wireToolCall('s2', 'spawn_agent', { prompt: 'worker B', description: 'Counts items' }),
        ],
      },
    };
  const results = users.filter((text) => text.includes(' finished (')).length;
  return { turn: { text: [results >= 2 ? 'Both reported.' : 'Waiting for them.'] } };
}

describe('agentchart chat: /agents', () => {
  const world: CliWorld = useCliWorld({
    prefix: 'agentchart-chat-agents',
    state: 'in-home',
    respond: answer,
  });
  const chat = usePtyChats(() => world);

  it('says when the chat offers no background agents, and lists them and their results when it does', async () => {
    const plain = chat([]);
    let at = await plain.waitFor('Type a task.');
    plain.type('/agents\r');
    at = await plain.waitFor(
      'No background agents: this chat does not offer them (start it with --background-agents).',
      at,
    );
    await leaveChat(plain, at);

    const pty = chat(['--background-agents']);
    at = await pty.waitFor('Type a task.');
    at = await pty.typeAndWait('/agents\r', 'No background agents in this session yet.', at);
    at = await pty.typeAndWait('supervise\r', 'Both reported.', at);
    at = await pty.waitFor('[mode default · gpt-4.1', at);

    at = await pty.typeAndWait('/agents\r', '/agents <id> shows one in full.', at);
    const listed = pty.screen.slice(at - 1200, at).split('\n');
    const from = listed.findIndex((text) => text.includes('2 background agents:'));
    const lines = listed.slice(from, from + 5).map((text) => text.trimEnd());
    const idOf = (label: string) => /^ {2}(\S+) {2}/.exec(lines.find((text) => text.endsWith(label))!)![1]!;
    const [idA, idB] = [idOf('Finds the answer'), idOf('Counts items')];
    const blockA = [`  ${idA}  finished (completed)  Finds the answer`, '    A found: 42'];
    const blockB = [
      `  ${idB}  finished (completed)  Counts items`,
      `    ${longResult.slice(0, 199)}… (${longResult.length} characters; /agents ${idB} shows it all)`,
    ];
    // Oldest first: the two were started side by side, so either may have started first.
    const [first, second] = lines[1]!.includes(idA) ? [blockA, blockB] : [blockB, blockA];
    expect(lines).toEqual(['2 background agents:', ...first, ...second]);

    at = await pty.typeAndWait(`/agents ${idB}\r`, `Agent ${idB}: Counts items`, at);
    at = await pty.waitFor('The end.', at);
    const shown = pty.screen
      .slice(pty.screen.lastIndexOf(`Agent ${idB}:`))
      .split('\n')
      .slice(0, 6);
    expect(shown.map((text) => text.trimEnd())).toEqual([
      `Agent ${idB}: Counts items`,
      '  status: finished (completed)',
      '  prompt:',
      '    worker B',
      '  result:',
      `    ${longResult}`,
    ]);
    at = await pty.typeAndWait(
      '/agents nobody\r',
      'No background agent nobody in this session. /agents lists them.',
      at,
    );
    const sessionId = await leaveChat(pty, at);

    // Resumed without the flag: the log says the session offered background agents, so it still does.
    const resumed = chat(['--resume', sessionId]);
    at = await resumed.waitFor(`${sessionId} (resumed`);
    at = await resumed.typeAndWait('/agents\r', '2 background agents:', at);
    await leaveChat(resumed, at);
  }, 90_000);
});
