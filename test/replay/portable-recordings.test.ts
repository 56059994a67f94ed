// Recordings replayed where they were not made: the log copied to another temporary folder, the check run
// from a third working directory (the built CLI, dist/, as child processes — build first — and expectReplay),
// the recorded workspace gone. Recorded tools need nothing but the log; live tools run in a restored copy.
import { copyFile, readFile, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { prepareDemo } from '../../src/cli/demo-scenario.ts';
import { ReplayDivergenceError } from '../../src/errors/replay-divergence-error.ts';
import { computeFrames } from '../../src/inspector/time-travel.ts';
import { expectReplay, readRecording } from '../../src/replay/expect-replay.ts';
import { readLog } from '../../src/session/log-text.ts';
import { runBuiltCliProcess } from '../support/child-run.ts';
import { sessionLogOf, useCliWorld } from '../support/cli-world.ts';
import { checkPassed, expectCheckPasses, replayCheck, tamperedCopy } from '../support/replay-check.ts';
import { useTempFolders } from '../support/temp-folders.ts';

const tempFolder = useTempFolders('agentchart-portable');
const eventCount = async (file: string) => (await readLog(file)).length;

describe('a `run` recording replayed in another folder', () => {
  const world = useCliWorld({ prefix: 'agentchart-portable', state: 'home' });

  it('checks clean with recorded tools and with live tools in a restored workspace; a tampered copy fails', async () => {
    const { server, workspace, env } = world;
    const input = JSON.stringify({ path: join(workspace, 'note.txt'), content: 'remember the milk\n' });
    server.reply({ turn: { toolCalls: [{ id: 'c1', name: 'write_file', argumentPieces: [input] }] } });
    server.reply({ turn: { text: ['Left a note.'] } });
    const run = await runBuiltCliProcess(['run', 'leave a note', '--yes', '--cwd', workspace], {
      env,
      timeoutMs: 60_000,
    });
    expect(run).toMatchObject({ code: 0, timedOut: false });
    const copy = join(await tempFolder('copy'), 'note.jsonl');
    await copyFile(sessionLogOf(run.stdout), copy);
    // The recording's workspace is gone: the teammate's machine, CI.
    await rm(workspace, { recursive: true, force: true });
    const elsewhere = await tempFolder('cwd');
    const events = await eventCount(copy);

    await expectCheckPasses(copy, checkPassed(copy, events), { env, cwd: elsewhere });
    await expectReplay(copy);

    // Live tools need the workspace as it was at the start (empty): not given, the check says so.
    const missing = await replayCheck(copy, { args: ['--tools', 'live'], env, cwd: elsewhere });
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain(`the recorded workspace "${workspace}" is not a directory here`);
    const restored = await tempFolder('restored');
    const live = ['--tools', 'live', '--workspace', restored];
    await expectCheckPasses(copy, checkPassed(copy, events), { args: live, env, cwd: elsewhere });
    // The absolute path the model wrote to was mapped onto the restored copy.
    expect(await readFile(join(restored, 'note.txt'), 'utf8')).toBe('remember the milk\n');
    await expectReplay(copy, { tools: 'live', workspace: await tempFolder('restored-again') });

    // Recorded tools still check the runtime: a permission decision the runtime would not take fails.
    const recordedReason = '"reason":"write access is allowed in accept-edits mode"';
    const { tampered, seq } = await tamperedCopy(
      copy,
      (line) => line.includes(recordedReason),
      (line) => line.replace(recordedReason, '"reason":"write access is allowed by a rule"'),
    );
    const check = await replayCheck(tampered, { env, cwd: elsewhere });
    expect(check.stdout.split('\n')).toEqual([
      `Replay check FAILED: ${tampered} diverged at seq ${seq} (approval.decided)`,
      '  why: the write_file call c1 was decided otherwise: recorded allow by mode, replayed allow by mode',
      '  data.reason: "write access is allowed by a rule" → "write access is allowed in accept-edits mode"',
      '  (--json prints the report with both whole lines)',
      '',
    ]);
    expect(check.code).toBe(1);
    const error = await expectReplay(tampered).catch((caught: unknown) => caught);
    expect(ReplayDivergenceError.isInstance(error)).toBe(true);
    expect((error as ReplayDivergenceError).seq).toBe(seq);
    expect((error as ReplayDivergenceError).changes.map((change) => change.path)).toEqual(['data.reason']);
  }, 180_000);
});

describe('`agentchart demo --keep`, then `replay --check` from any folder', () => {
  it('exits 0 with recorded tools and with live tools in a restored copy of the demo project', async () => {
    const start = await tempFolder('demo-cwd');
    const demo = await runBuiltCliProcess(['demo', '--keep'], { cwd: start, timeoutMs: 90_000 });
    expect(demo).toMatchObject({ code: 0, timedOut: false });
    const log = sessionLogOf(demo.stdout);
    tempFolder.adopt(dirname(log));
    const copy = join(await tempFolder('demo-copy'), 'demo.jsonl');
    await copyFile(log, copy);
    const elsewhere = await tempFolder('demo-elsewhere');
    const events = await eventCount(copy);

    // Live tools: the demo writes its starting project again; the tools fix that copy as they did the first.
    const { root, workspace: restored } = await prepareDemo('agentchart-portable-demo-restored-');
    tempFolder.adopt(root);
    const live = ['--tools', 'live', '--workspace', restored];
    await expectCheckPasses(copy, checkPassed(copy, events), {
      args: live,
      cwd: elsewhere,
      timeoutMs: 90_000,
    });
    expect(await readFile(join(restored, 'src/math.js'), 'utf8')).toContain('for (let i = 0;');

    // Recorded tools: nothing but the log, the demo's own folder gone.
    await rm(dirname(log), { recursive: true, force: true });
    await expectCheckPasses(copy, checkPassed(copy, events), { cwd: elsewhere, timeoutMs: 90_000 });
    await expectReplay(copy);
    // Time travel re-runs it the same way (once stopped by a second "skill"): a frame at every seq.
    const travel = await computeFrames(await readRecording(copy));
    expect(travel.note).toBeUndefined();
    expect(travel.frames.filter((frame) => frame !== undefined)).toHaveLength(events);
  }, 240_000);
});
