// The chat's own inputs — a steer typed while a tool runs, `/mode`, `/compact` — in a real pseudo-terminal
// against the local OpenAI-compatible server, one row each; the session is then checked elsewhere
// (origin-kit: recorded tools, live tools in a restored workspace, a tampered copy). The replay must give
// each input again at the seq it was logged.
import { cp, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sessionsFolder } from '../../src/cli/session-folders.ts';
import type { LogEvent } from '../../src/session/types.ts';
import { leaveChat, type PtySession, usePtyChats } from '../cli/pty-session.ts';
import { wireToolCall as call, useCliWorld } from '../support/cli-world.ts';
import type { WireReply } from '../support/wire/reply.ts';
import { checkEverywhere, eventsOf, type Tamper, tempFolder } from './origin-kit.ts';

type Row = {
  name: string;
  args: string[];
  replies: (signals: string) => WireReply[];
  /** Types into the chat and waits for each answer; `signals` is a folder outside the workspace. */
  drive(pty: PtySession, signals: string): Promise<number>;
  recorded(log: readonly LogEvent[]): void;
  tamper: Tamper;
};

/** Waits until the turn is over: the status line after it. */
const idle = (pty: PtySession, at: number) => pty.waitFor('[mode ', at);

const rows: Row[] = [
  {
    name: 'a steer typed while a tool runs',
    args: ['--mode', 'bypass'],
    // The command waits for a file the test writes once the steer is on the screen: no timing margin. The
    // file is outside the workspace, so a live replay's command finds it at once.
    replies: (signals) => [
      {
        turn: {
          toolCalls: [
            call('c1', 'bash', { command: `while [ ! -f ${signals}/go ]; do sleep 0.05; done; echo went` }),
          ],
        },
      },
      { turn: { text: ['Went, and hi.'] } },
    ],
    drive: async (pty, signals) => {
      pty.type('wait for go\r');
      let at = await pty.waitFor('→ bash');
      pty.type('also say hi\r');
      at = await pty.waitFor('(steer: the model reads it at its next step)', at);
      await writeFile(join(signals, 'go'), '');
      at = await pty.waitFor('Went, and hi.', at);
      return idle(pty, at);
    },
    recorded: (log) => {
      const queued = eventsOf(log, 'inbox.queued');
      expect(queued.map((event) => [event.data.channel, event.data.message])).toEqual([
        ['followup', 'wait for go'],
        ['steer', 'also say hi'],
      ]);
      // Steered while the command ran: after it started, before its result.
      const seqOf = (type: string) => eventsOf(log, type)[0]!.seq;
      expect(seqOf('tool.started') < queued[1]!.seq && queued[1]!.seq < seqOf('tool.result')).toBe(true);
    },
    tamper: { type: 'approval.decided', path: ['reason'], value: 'exec access is allowed by a rule' },
  },
  {
    name: '/mode',
    args: [],
    replies: () => [
      { turn: { toolCalls: [call('c1', 'write_file', { path: 'a.txt', content: 'one\n' })] } },
      { turn: { text: ['Wrote a.'] } },
    ],
    drive: async (pty) => {
      pty.type('/mode accept-edits\r');
      let at = await pty.waitFor('» mode default → accept-edits (set by the user)');
      pty.type('write a\r');
      at = await pty.waitFor('Wrote a.', at);
      return idle(pty, at);
    },
    recorded: (log) =>
      expect(eventsOf(log, 'mode.changed').map((event) => event.data)).toEqual([
        { from: 'default', to: 'accept-edits', by: 'user' },
      ]),
    tamper: { type: 'approval.decided', path: ['by'], value: 'rule' },
  },
  {
    name: '/compact',
    args: [],
    replies: () => [
      { turn: { toolCalls: [call('r1', 'read_file', { path: 'a.txt' })] } },
      { turn: { text: ['It says one.'] } },
      { turn: { text: ['Second answer.'] } },
      { turn: { text: ['Summary: a.txt says one.'] } },
      { turn: { text: ['Third answer.'] } },
    ],
    drive: async (pty) => {
      pty.type('read a\r');
      let at = await pty.waitFor('It says one.');
      at = await idle(pty, at);
      pty.type('second question\r');
      at = await pty.waitFor('Second answer.', at);
      at = await idle(pty, at);
      pty.type('/compact keep the file\r');
      at = await pty.waitFor('Compacted: the context held', at);
      pty.type('third question\r');
      at = await pty.waitFor('Third answer.', at);
      return idle(pty, at);
    },
    recorded: (log) =>
      expect(eventsOf(log, 'compaction').map((event) => event.data.trigger)).toEqual(['manual']),
    tamper: { type: 'compaction', path: ['tokensBefore'], value: 1 },
  },
  {
    name: 'a plan accepted in plan mode',
    args: ['--mode', 'plan'],
    replies: () => [
      { turn: { toolCalls: [call('r1', 'read_file', { path: 'a.txt' })] } },
      { turn: { toolCalls: [call('p1', 'exit_plan_mode', { plan: '1. Write b.txt' })] } },
      { turn: { toolCalls: [call('w1', 'write_file', { path: 'b.txt', content: 'two\n' })] } },
      { turn: { text: ['Planned and wrote b.'] } },
    ],
    drive: async (pty) => {
      pty.type('plan, then write b\r');
      let at = await pty.waitFor('Accept this plan?');
      // "e": accept, and let edits run without asking (accept-edits).
      pty.type('e\r');
      at = await pty.waitFor('Planned and wrote b.', at);
      return idle(pty, at);
    },
    recorded: (log) => {
      expect(eventsOf(log, 'approval.decided').map((event) => [event.data.callId, event.data.by])).toEqual([
        ['r1', 'mode'],
        ['p1', 'host'],
        ['w1', 'mode'],
      ]);
      expect(eventsOf(log, 'mode.changed').map((event) => [event.data.from, event.data.to])).toEqual([
        ['plan', 'accept-edits'],
      ]);
    },
    tamper: { type: 'mode.changed', path: ['to'], value: 'bypass' },
  },
];

describe('replay of what the chat recorded, by input', () => {
  const world = useCliWorld({ prefix: 'agentchart-origin-chat', state: 'in-home' });
  const chat = usePtyChats(() => world);

  it.each(rows.map((row) => [row.name, row] as const))(
    '%s',
    async (_name, row) => {
      const { server, workspace, home, env } = world;
      await writeFile(join(workspace, 'a.txt'), 'one\n');
      const start = await tempFolder('chat-start');
      await cp(workspace, start, { recursive: true });
      const signals = await tempFolder('chat-signals');
      for (const reply of row.replies(signals)) server.reply(reply);
      const pty = chat(row.args);
      await pty.waitFor('Type a task.');
      await leaveChat(pty, await row.drive(pty, signals));
      const folder = sessionsFolder(workspace, env);
      const files = await readdir(folder);
      expect(files).toHaveLength(1);
      const copy = join(await tempFolder('chat-recording'), 'chat.jsonl');
      await cp(join(folder, files[0]!), copy);
      await rm(workspace, { recursive: true, force: true });
      await rm(home, { recursive: true, force: true });

      const restore = async () => {
        const restored = await tempFolder('chat-restored');
        await cp(start, restored, { recursive: true });
        return restored;
      };
      const events = await checkEverywhere({ log: copy, restore, tamper: row.tamper });
      row.recorded(events);
      // One chat, one end.
      expect(eventsOf(events, 'session.end').map((event) => event.seq)).toEqual([events.length - 1]);
    },
    240_000,
  );
});
