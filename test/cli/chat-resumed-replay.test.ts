// A chat session as a person has it, in a real pseudo-terminal against the local OpenAI-compatible server:
// a first chat, `--continue` in a second one, `/model` (the session reopened with another model) and a
// turn cancelled with Esc while the model streams. The log is copied to another temporary folder with the
// workspace gone and checked from a third: `agentchart replay --check` (the built CLI, dist/: build first)
// and `expectReplay`, with recorded tools and with live tools in a restored workspace; a tampered copy
// fails naming the seq and the field.
import { copyFile, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sessionsFolder } from '../../src/cli/session-folders.ts';
import { ReplayDivergenceError } from '../../src/errors/replay-divergence-error.ts';
import { expectReplay } from '../../src/replay/expect-replay.ts';
import { readLog } from '../../src/session/log-text.ts';
import { wireToolCall as call, useCliWorld } from '../support/cli-world.ts';
import { checkPassed, expectCheckPasses, replayCheck, tamperedCopy } from '../support/replay-check.ts';
import { useTempFolders } from '../support/temp-folders.ts';
import { leaveChat as leave, usePtyChats } from './pty-session.ts';

const write = (id: string, path: string, content: string) => call(id, 'write_file', { path, content });

describe('a chat continued, reopened with /model and cancelled with Esc replays byte for byte', () => {
  const world = useCliWorld({ prefix: 'agentchart-chat-replay', state: 'in-home' });
  const chat = usePtyChats(() => world);
  const tempFolder = useTempFolders('agentchart-chat-replay');

  it('passes recorded and live from another folder; a tampered cancel fails naming seq and field', async () => {
    const { server, workspace, env } = world;
    server.reply({ turn: { toolCalls: [write('c1', 'a.txt', 'one\n')] } });
    server.reply({ turn: { text: ['Wrote a.'] } });
    const first = chat(['--yes']);
    let at = await first.waitFor('Type a task.');
    at = await first.typeAndWait('write a\r', 'Wrote a.', at);
    at = await first.waitFor('[mode accept-edits · gpt-4.1', at);
    await leave(first, at);

    server.reply({ turn: { toolCalls: [write('c2', 'b.txt', 'two\n')] } });
    server.reply({ turn: { text: ['Wrote b.'] } });
    server.reply({ turn: { text: ['Thinking about c'], ending: 'hang' } });
    const again = chat(['--continue', '--yes']);
    at = await again.waitFor(/\(resumed, \d+ events\)/);
    at = await again.typeAndWait('/model gpt-4o\r', 'OpenAI-compatible gpt-4o at', at);
    at = await again.typeAndWait('write b\r', 'Wrote b.', at);
    at = await again.typeAndWait('now c\r', 'Thinking about c', at);
    at = await again.typeAndWait('\u001b', 'ended: canceled', at);
    await leave(again, at);

    const folder = sessionsFolder(workspace, env);
    const [name] = await readdir(folder);
    const log = join(folder, name!);
    const events = await readLog(log);
    const of = (type: string) => events.filter((event) => event.type === type);
    // Three processes wrote it: the first chat, `--continue`, and `/model`'s reopening.
    expect(of('session.end')).toHaveLength(3);
    expect(of('session.resumed').map((event) => (event.data.config as { model: string }).model)).toEqual([
      'gpt-4.1',
      'gpt-4o',
    ]);
    expect(of('cancel.requested').map((event) => event.data)).toEqual([{ by: 'user' }]);
    expect(of('assistant.message').at(-1)?.data).toMatchObject({
      text: 'Thinking about c',
      interrupted: true,
    });

    const copy = join(await tempFolder('copy'), 'chat.jsonl');
    await copyFile(log, copy);
    await rm(workspace, { recursive: true, force: true });
    const elsewhere = await tempFolder('cwd');
    const passed = checkPassed(copy, events.length);
    await expectCheckPasses(copy, passed, { env, cwd: elsewhere });
    await expectReplay(copy);
    const restored = await tempFolder('restored');
    const live = ['--tools', 'live', '--workspace', restored];
    await expectCheckPasses(copy, passed, { args: live, env, cwd: elsewhere });
    expect(await readFile(join(restored, 'b.txt'), 'utf8')).toBe('two\n');

    // The cancel tampered with (cleared the queue too): the check names its seq and field.
    const { tampered, seq } = await tamperedCopy(
      copy,
      (line) => line.includes('"type":"cancel.requested"'),
      (line) => line.replace('{"by":"user"}', '{"by":"user","clearInbox":false}'),
    );
    const check = await replayCheck(tampered, { env, cwd: elsewhere });
    expect(check.code).toBe(1);
    expect(check.stdout.split('\n')[0]).toBe(
      `Replay check FAILED: ${tampered} diverged at seq ${seq} (cancel.requested)`,
    );
    expect(check.stdout).toContain('data.clearInbox');
    const error = await expectReplay(tampered).catch((caught: unknown) => caught);
    expect(ReplayDivergenceError.isInstance(error)).toBe(true);
    expect((error as ReplayDivergenceError).seq).toBe(seq);
  }, 180_000);
});
