// Sessions the real CLI recorded (a child process against a local OpenAI-compatible server), checked again
// with `agentchart replay --check` as a child process (the check offers the tools the recording offered)
// and `expectReplay`; tampered copies fail with a report that names the seq, the field and why.
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ReplayDivergenceError } from '../../src/errors/replay-divergence-error.ts';
import { computeFrames } from '../../src/inspector/time-travel.ts';
import { expectReplay } from '../../src/replay/expect-replay.ts';
import { readLog } from '../../src/session/log-text.ts';
import { codingTools } from '../../src/tools/coding-tools.ts';
import { taskTool } from '../../src/tools/task.ts';
import { runCliProcess } from '../support/child-run.ts';
import { sessionLogOf, useCliWorld, wireToolCall } from '../support/cli-world.ts';
import { checkPassed, expectCheckPasses, replayCheck } from '../support/replay-check.ts';
import { useTempFolders } from '../support/temp-folders.ts';
import type { OpenAIChatServer } from '../support/wire/openai-chat-server.ts';

const writeCall = (id: string, path: string, content: string) =>
  wireToolCall(id, 'write_file', { path, content });

describe('replay --check on sessions the CLI recorded', () => {
  let server: OpenAIChatServer;
  let workspace: string;
  let env: Record<string, string>;
  useCliWorld(
    { prefix: 'agentchart-recorded', state: 'home' },
    (world) => ({ server, workspace, env } = world),
  );
  const tempFolder = useTempFolders('agentchart-recorded');

  /** `agentchart run "leave a note" --yes`: one write, allowed by accept-edits. Returns the log file. */
  const recordNote = async () => {
    server.reply({ turn: { toolCalls: [writeCall('c1', 'note.txt', 'remember the milk\n')] } });
    server.reply({ turn: { text: ['Left a note.'] } });
    const run = await runCliProcess(['run', 'leave a note', '--yes', '--cwd', workspace], {
      env,
      timeoutMs: 60_000,
    });
    expect(run).toMatchObject({ code: 0, timedOut: false });
    return sessionLogOf(run.stdout);
  };

  it('passes on `run --yes` (the coding tools and task): recorded tools by default, live tools on request', async () => {
    const file = await recordNote();
    const recorded = await readLog(file);
    const start = recorded[0]!.data as { config: { tools: { name: string }[] } };
    expect(start.config.tools.map((tool) => tool.name)).toEqual([
      'read_file',
      'write_file',
      'edit_file',
      'list_dir',
      'glob',
      'grep',
      'bash',
      'task',
    ]);
    const passed = checkPassed(file, recorded.length);
    // Recorded tools (the default): every result comes from the log, no tool runs.
    await rm(join(workspace, 'note.txt'));
    await expectCheckPasses(file, passed, { env, cli: runCliProcess });
    await expect(readFile(join(workspace, 'note.txt'), 'utf8')).rejects.toThrow(/ENOENT/);
    // Live tools run again for real, in the workspace as it was when the session started.
    await expectCheckPasses(file, passed, { args: ['--tools', 'live'], env, cli: runCliProcess });
    expect(await readFile(join(workspace, 'note.txt'), 'utf8')).toBe('remember the milk\n');
  }, 120_000);

  it('fails on a tampered copy naming the seq, the field and the tool, in words, as JSON and from expectReplay', async () => {
    const file = await recordNote();
    const text = await readFile(file, 'utf8');
    const copy = join(await tempFolder('copy'), 'tampered.jsonl');
    const recordedResult = '"content":"Created note.txt (18 bytes)."';
    expect(text).toContain(recordedResult);
    await writeFile(copy, text.replace(recordedResult, '"content":"Created note.txt (81 bytes)."'));
    const lines = (await readFile(copy, 'utf8')).split('\n');
    const seq = lines.findIndex((entry) => entry.includes('(81 bytes)'));
    const restore = () => rm(join(workspace, 'note.txt'), { force: true });
    await restore();
    // A tool's result is only checked when the tool runs again (recorded tools answer as the log says).
    const check = await runCliProcess(['replay', copy, '--check', '--tools', 'live'], {
      env,
      timeoutMs: 60_000,
    });
    expect(check.stdout.split('\n')).toEqual([
      `Replay check FAILED: ${copy} diverged at seq ${seq} (tool.result)`,
      '  why: write_file answered differently',
      '  data.content: "Created note.txt (81 bytes)." → "Created note.txt (18 bytes)."',
      '  (--json prints the report with both whole lines)',
      '',
    ]);
    expect(check.code).toBe(1);

    await restore();
    const json = await runCliProcess(['replay', copy, '--check', '--tools', 'live', '--json'], {
      env,
      timeoutMs: 60_000,
    });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toEqual({
      ok: false,
      file: copy,
      events: lines.length - 1,
      divergence: {
        seq,
        recordedType: 'tool.result',
        replayedType: 'tool.result',
        reason: 'write_file answered differently',
        changes: [
          {
            path: 'data.content',
            change: 'changed',
            recorded: '"Created note.txt (81 bytes)."',
            replayed: '"Created note.txt (18 bytes)."',
          },
        ],
        recorded: lines[seq],
        replayed: lines[seq]!.replace('(81 bytes)', '(18 bytes)'),
      },
    });

    await restore();
    const error = await expectReplay(copy, { tools: [...codingTools(), taskTool()] }).catch(
      (caught: unknown) => caught,
    );
    expect(ReplayDivergenceError.isInstance(error)).toBe(true);
    expect((error as ReplayDivergenceError).toJSON()).toEqual(JSON.parse(json.stdout).divergence);
  }, 120_000);

  it('names the tool the host left out when expectReplay is given other tools than the recording', async () => {
    const file = await recordNote();
    const error = await expectReplay(file, { tools: codingTools() }).catch((caught: unknown) => caught);
    expect(ReplayDivergenceError.isInstance(error)).toBe(true);
    const { seq, recordedType, reason, changes } = error as ReplayDivergenceError;
    expect({ seq, recordedType, reason, changes }).toEqual({
      seq: 0,
      recordedType: 'session.start',
      reason: "the tools offered differ from the recording's",
      changes: [{ path: 'data.config.tools', change: 'removed', recorded: 'task' }],
    });
  }, 120_000);

  it('passes on a headless `run` (the write denied, nobody to ask); an approver given is asked, and that diverges', async () => {
    server.reply({ turn: { toolCalls: [writeCall('c1', 'note.txt', 'remember the milk\n')] } });
    server.reply({ turn: { text: ['I could not write the note.'] } });
    const run = await runCliProcess(['run', 'leave a note', '--cwd', workspace], { env, timeoutMs: 60_000 });
    expect(run).toMatchObject({ code: 0, timedOut: false });
    const file = sessionLogOf(run.stdout);
    const recorded = await readLog(file);
    const decisions = recorded.filter((event) => event.type.startsWith('approval.'));
    expect(decisions.map((event) => [event.type, (event.data as { by?: string }).by])).toEqual([
      ['approval.decided', 'headless'],
    ]);

    // No approver: the decision replays as logged.
    const check = await replayCheck(file, { env, cli: runCliProcess });
    expect(check.stdout).toBe(checkPassed(file, recorded.length));
    expect(check.code).toBe(0);
    await expectReplay(file, { tools: [...codingTools(), taskTool()] });
    // Time travel re-runs it the same way: a frame for every seq, no note.
    const travel = await computeFrames(recorded);
    expect(travel.note).toBeUndefined();
    expect(travel.frames.filter((frame) => frame !== undefined)).toHaveLength(recorded.length);

    // An approver given is asked where the recording had nobody to ask: a divergence naming the call.
    const error = await expectReplay(file, {
      tools: [...codingTools(), taskTool()],
      approve: async () => 'deny',
    }).catch((caught: unknown) => caught);
    expect(ReplayDivergenceError.isInstance(error)).toBe(true);
    const { seq, recordedType, replayedType, reason } = error as ReplayDivergenceError;
    expect({ seq, recordedType, replayedType, reason }).toEqual({
      seq: recorded.indexOf(decisions[0]!),
      recordedType: 'approval.decided',
      replayedType: 'approval.asked',
      reason: 'the runtime asked for approval where the recording decided headless (write_file call c1)',
    });
  }, 120_000);
});
