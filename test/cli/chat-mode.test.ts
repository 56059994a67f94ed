// The chat's `/mode` in a real pseudo-terminal against the local OpenAI-compatible server: the switch is
// in the log as `mode.changed{ by: 'user' }`, the session stays open (one `session.end` per chat), and
// `--continue` comes back in the mode the log recorded, not the default; `replay --check` passes on it.
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sessionsFolder } from '../../src/cli/session-folders.ts';
import { readLog as readLogFile } from '../../src/session/log-text.ts';
import type { LogEvent } from '../../src/session/types.ts';
import { runCliProcess } from '../support/child-run.ts';
import { useCliWorld } from '../support/cli-world.ts';
import { leaveChat as leave, usePtyChats } from './pty-session.ts';

const write = (id: string, path: string, content: string) => ({
  id,
  name: 'write_file',
  argumentPieces: [JSON.stringify({ path, content })],
});

describe('agentchart chat: /mode', () => {
  const world = useCliWorld({ prefix: 'agentchart-chat-mode', state: 'in-home' });
  const chat = usePtyChats(() => world);
  const logFile = async () => {
    const folder = sessionsFolder(world.workspace, world.env);
    const files = await readdir(folder);
    expect(files).toHaveLength(1);
    return join(folder, files[0]!);
  };
  const readLog = async () => readLogFile(await logFile());
  const typesOf = (log: LogEvent[], type: string) =>
    log.flatMap((event) => (event.type === type ? [{ seq: event.seq, data: event.data }] : []));

  it('logs /mode as mode.changed by the user, ends once, and --continue resumes in that mode', async () => {
    const { server, workspace, env } = world;
    server.reply({ turn: { toolCalls: [write('c1', 'a.txt', 'one\n')] } });
    server.reply({ turn: { text: ['Wrote a.'] } });
    const first = chat([]);
    let at = await first.waitFor('· mode default ·');
    at = await first.waitFor('Type a task.', at);
    at = await first.typeAndWait(
      '/mode accept-edits\r',
      '» mode default → accept-edits (set by the user)',
      at,
    );
    // accept-edits allows the write: no question is put, the file is written.
    at = await first.typeAndWait('write a\r', 'Wrote a.', at);
    at = await first.waitFor('[mode accept-edits · gpt-4.1', at);
    expect(first.screen).not.toContain('Allow this write_file call?');
    await leave(first, at);
    expect(await readFile(join(workspace, 'a.txt'), 'utf8')).toBe('one\n');

    const recorded = await readLog();
    expect(typesOf(recorded, 'mode.changed').map(({ data }) => data)).toEqual([
      { from: 'default', to: 'accept-edits', by: 'user' },
    ]);
    expect(typesOf(recorded, 'session.end').map(({ seq }) => seq)).toEqual([recorded.length - 1]);
    expect(typesOf(recorded, 'approval.decided').map(({ data }) => data)).toEqual([
      { callId: 'c1', outcome: 'allow', by: 'mode', reason: 'write access is allowed in accept-edits mode' },
    ]);
    // The switch is given again where the log has it: the check passes on the workspace as it was.
    await rm(join(workspace, 'a.txt'));
    const check = await runCliProcess(['replay', await logFile(), '--check'], { env, timeoutMs: 60_000 });
    expect(check.stdout).toMatch(/^Replay check passed: .* — \d+ events written again, byte for byte\.\n$/);
    expect(check.code).toBe(0);

    // Back in the mode the log recorded: the next write is allowed by it too, and nothing switches it.
    server.reply({ turn: { toolCalls: [write('c2', 'b.txt', 'two\n')] } });
    server.reply({ turn: { text: ['Wrote b.'] } });
    const again = chat(['--continue']);
    at = await again.waitFor(/· mode accept-edits · .*\(resumed, \d+ events\)/);
    at = await again.typeAndWait('write b\r', 'Wrote b.', at);
    await leave(again, at);
    expect(again.screen).not.toContain('Allow this write_file call?');
    expect(await readFile(join(workspace, 'b.txt'), 'utf8')).toBe('two\n');

    const resumed = await readLog();
    expect(resumed.slice(0, recorded.length)).toEqual(recorded);
    expect(typesOf(resumed, 'mode.changed').map(({ data }) => data)).toEqual([
      { from: 'default', to: 'accept-edits', by: 'user' },
    ]);
    // One end per chat that had the session open.
    expect(typesOf(resumed, 'session.end').map(({ seq }) => seq)).toEqual([
      recorded.length - 1,
      resumed.length - 1,
    ]);
  }, 60_000);

  it('switches while a turn runs, and from bypass to a mode that asks on the same session', async () => {
    const { server, workspace } = world;
    // The command waits for a file the test writes once the switch is on the screen: no timing margin.
    const command = 'while [ ! -f go ]; do sleep 0.05; done; echo went';
    server.reply({
      turn: { toolCalls: [{ id: 'c1', name: 'bash', argumentPieces: [JSON.stringify({ command })] }] },
    });
    server.reply({ turn: { toolCalls: [write('c2', 'b.txt', 'two\n')] } });
    server.reply({ turn: { text: ['Done.'] } });
    const pty = chat(['--mode', 'bypass']);
    let at = await pty.waitFor('Type a task.');
    at = await pty.typeAndWait('wait, then write b\r', '→ bash', at);
    at = await pty.typeAndWait('/mode default\r', '» mode bypass → default (set by the user)', at);
    await writeFile(join(workspace, 'go'), '');
    // The next step's write is decided in default mode: the person is asked.
    at = await pty.waitFor('Allow this write_file call?', at);
    at = await pty.typeAndWait('y\r', 'Done.', at);
    at = await pty.waitFor('[mode default · gpt-4.1', at);
    await leave(pty, at);
    expect(await readFile(join(workspace, 'b.txt'), 'utf8')).toBe('two\n');

    const log = await readLog();
    expect(typesOf(log, 'mode.changed').map(({ data }) => data)).toEqual([
      { from: 'bypass', to: 'default', by: 'user' },
    ]);
    expect(typesOf(log, 'approval.decided').map(({ data }) => data)).toEqual([
      { callId: 'c1', outcome: 'allow', by: 'mode', reason: 'exec access is allowed in bypass mode' },
      { callId: 'c2', outcome: 'allow', by: 'host' },
    ]);
    // Switched inside the turn: after bash started, before its result.
    const seqOf = (type: string, callId: string) =>
      log.find((event) => event.type === type && (event.data as { callId?: string }).callId === callId)!.seq;
    const switched = typesOf(log, 'mode.changed')[0]!.seq;
    expect(switched).toBeGreaterThan(seqOf('tool.started', 'c1'));
    expect(switched).toBeLessThan(seqOf('tool.result', 'c1'));
    expect(typesOf(log, 'session.end').map(({ seq }) => seq)).toEqual([log.length - 1]);
  }, 60_000);
});
