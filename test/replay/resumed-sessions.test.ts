// Sessions the real CLI recorded and then continued in another process (`agentchart resume`, and a run
// SIGKILLed mid-tool and then resumed), copied to another temporary folder with the workspace gone and
// checked from a third working directory: `agentchart replay --check` (the built CLI, dist/: build first)
// and `expectReplay`, with recorded tools and with live tools in a restored workspace. The replay runs the
// recording segment by segment, each with the configuration its `session.start` / `session.resumed` holds.
import { execFileSync } from 'node:child_process';
import { copyFile, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ReplayDivergenceError } from '../../src/errors/replay-divergence-error.ts';
import { computeFrames } from '../../src/inspector/time-travel.ts';
import { expectReplay } from '../../src/replay/expect-replay.ts';
import { readLog } from '../../src/session/log-text.ts';
import { runBuiltCliProcess, startCliProcess } from '../support/child-run.ts';
import { wireToolCall as call, sessionLogOf, useCliWorld } from '../support/cli-world.ts';
import { checkPassed, expectCheckPasses, replayCheck, tamperedCopy } from '../support/replay-check.ts';
import { useTempFolders } from '../support/temp-folders.ts';
import type { OpenAIChatServer } from '../support/wire/openai-chat-server.ts';

const tempFolder = useTempFolders('agentchart-resumed');

describe('resumed sessions replay segment by segment', () => {
  let server: OpenAIChatServer;
  let workspace: string;
  let env: Record<string, string>;
  useCliWorld(
    { prefix: 'agentchart-resumed', state: 'home' },
    (world) => ({ server, workspace, env } = world),
  );

  /** Copies the log where it was not made and checks it from a third folder, recorded and live. */
  const checkElsewhere = async (log: string, workspace: string) => {
    const copy = join(await tempFolder('copy'), 'session.jsonl');
    await copyFile(log, copy);
    await rm(workspace, { recursive: true, force: true });
    const elsewhere = await tempFolder('cwd');
    const recordedEvents = await readLog(copy);
    const events = recordedEvents.length;
    await expectCheckPasses(copy, checkPassed(copy, events), { env, cwd: elsewhere });
    await expectReplay(copy);
    // Time travel re-runs it the same way: a frame at every seq, across the segments.
    const travel = await computeFrames(recordedEvents);
    expect(travel.note).toBeUndefined();
    expect(travel.frames.filter((frame) => frame !== undefined)).toHaveLength(events);
    const restored = await tempFolder('restored');
    const live = ['--tools', 'live', '--workspace', restored];
    await expectCheckPasses(copy, checkPassed(copy, events), { args: live, env, cwd: elsewhere });
    return { copy, elsewhere, restored };
  };

  it('`run` then `resume --max-steps 7`: the second segment runs with its own limits and is checked', async () => {
    server.reply({
      turn: { toolCalls: [call('c1', 'write_file', { path: 'note.txt', content: 'milk\n' })] },
    });
    server.reply({ turn: { text: ['Left a note.'] } });
    const run = await runBuiltCliProcess(['run', 'leave a note', '--yes', '--cwd', workspace], {
      env,
      timeoutMs: 60_000,
    });
    expect(run).toMatchObject({ code: 0, timedOut: false });
    const log = sessionLogOf(run.stdout);
    server.reply({ turn: { toolCalls: [call('c2', 'read_file', { path: 'note.txt' })] } });
    server.reply({ turn: { text: ['It says milk.'] } });
    const resumed = await runBuiltCliProcess(
      ['resume', log, 'what does it say?', '--yes', '--max-steps', '7'],
      { env, timeoutMs: 60_000 },
    );
    expect(resumed).toMatchObject({ code: 0, timedOut: false });
    const events = await readLog(log);
    const ends = events.flatMap((event, seq) => (event.type === 'session.end' ? [seq] : []));
    expect(ends).toHaveLength(2);
    const marker = events[ends[0]! + 1]!;
    expect(marker.type).toBe('session.resumed');
    const config = marker.data.config as { limits: { maxSteps: number }; tools: { name: string }[] };
    expect(config.limits.maxSteps).toBe(7);
    expect(config.tools.map((tool) => tool.name)).toContain('task');

    const { copy, elsewhere, restored } = await checkElsewhere(log, workspace);
    // Live tools ran both segments in the restored copy: the note written, then read.
    expect(await readFile(join(restored, 'note.txt'), 'utf8')).toBe('milk\n');

    // A decision of the resumed segment tampered with: the check names its seq and field.
    const { tampered, seq } = await tamperedCopy(
      copy,
      (line) => line.includes('"callId":"c2","outcome":"allow"'),
      (line) => line.replace('"outcome":"allow"', '"outcome":"deny"'),
    );
    expect(seq).toBeGreaterThan(ends[0]!);
    const check = await replayCheck(tampered, { env, cwd: elsewhere });
    expect(check.code).toBe(1);
    expect(check.stdout.split('\n').slice(0, 1)).toEqual([
      `Replay check FAILED: ${tampered} diverged at seq ${seq} (approval.decided)`,
    ]);
    expect(check.stdout).toContain('  data.outcome: "deny" → "allow"');
    const error = await expectReplay(tampered).catch((caught: unknown) => caught);
    expect(ReplayDivergenceError.isInstance(error)).toBe(true);
    expect((error as ReplayDivergenceError).seq).toBe(seq);
    expect((error as ReplayDivergenceError).changes.map((change) => change.path)).toEqual(['data.outcome']);

    // A log whose resumed process recorded nothing of how it ran (an older build) is not guessed at.
    const old = events
      .filter((_, index) => index !== ends[0]! + 1)
      .map((event, index) => ({ ...event, seq: index }));
    const unrecorded = await expectReplay(old).catch((caught: unknown) => caught);
    expect(ReplayDivergenceError.isInstance(unrecorded)).toBe(true);
    expect((unrecorded as ReplayDivergenceError).seq).toBe(ends[0]! + 1);
    expect((unrecorded as ReplayDivergenceError).reason).toContain(
      `the recording goes on after session.end at seq ${ends[0]} without session.resumed`,
    );
  }, 240_000);

  it('a run SIGKILLed while its tool runs, then resumed: the crash is cut where the log ends, repair compared', async () => {
    const signals = await tempFolder('signals');
    const ready = join(signals, 'ready.fifo');
    const go = join(signals, 'go.fifo');
    execFileSync('mkfifo', [ready, go]);
    // The command says it runs (a FIFO the test reads: an event, not a wait), then waits to be released.
    const command = `echo started > note.txt; echo ready > ${ready}; read line < ${go}`;
    server.reply({ turn: { toolCalls: [call('c1', 'bash', { command })] } });
    const child = startCliProcess(['run', 'start the job', '--mode', 'bypass', '--cwd', workspace], {
      env,
      timeoutMs: 60_000,
    });
    expect((await readFile(ready, 'utf8')).trim()).toBe('ready');
    child.kill('SIGKILL');
    const killed = await child.done;
    expect(killed.signal).toBe('SIGKILL');
    // The orphaned command is released so it ends.
    await writeFile(go, 'go\n');
    const sessions = join(env.XDG_STATE_HOME!, 'agentchart', 'sessions');
    const [project] = await readdir(sessions);
    const [name] = (await readdir(join(sessions, project!))).filter((file) => file.endsWith('.jsonl'));
    const log = join(sessions, project!, name!);
    const crashed = await readLog(log);
    expect(crashed.at(-1)?.type).toBe('tool.started');

    server.reply({ turn: { text: ['The job may have started; I will check.'] } });
    const resumed = await runBuiltCliProcess(['resume', log, 'did it run?', '--mode', 'bypass'], {
      env,
      timeoutMs: 60_000,
    });
    expect(resumed).toMatchObject({ code: 0, timedOut: false });
    const events = await readLog(log);
    expect(events.slice(crashed.length, crashed.length + 4).map((event) => event.type)).toEqual([
      'session.resumed',
      'tool.result',
      'step.end',
      'turn.end',
    ]);
    expect(events[crashed.length + 1]!.data).toMatchObject({ callId: 'c1', outcome: 'unknown' });

    const { copy, elsewhere, restored } = await checkElsewhere(log, workspace);
    // The call the crash cut short is not run again by the replay of the killed process.
    await expect(readFile(join(restored, 'note.txt'), 'utf8')).rejects.toThrow(/ENOENT/);

    // The repair tampered with: the check names its seq and field.
    const { tampered, seq } = await tamperedCopy(
      copy,
      (_line, index) => index === crashed.length + 3,
      (line) => line.replace('"reason":"interrupted"', '"reason":"canceled"'),
    );
    const check = await replayCheck(tampered, { env, cwd: elsewhere });
    expect(check.code).toBe(1);
    expect(check.stdout.split('\n')[0]).toBe(
      `Replay check FAILED: ${tampered} diverged at seq ${seq} (turn.end)`,
    );
    expect(check.stdout).toContain('  data.reason: "canceled" → "interrupted"');
  }, 240_000);
});
