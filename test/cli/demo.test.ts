import { readFile, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { LiveEvent } from '../../src/actors/live-event.ts';
import { demoSteer, demoTask } from '../../src/cli/demo-scenario.ts';
import { readLog } from '../../src/session/log-text.ts';
import type { LogEvent } from '../../src/session/types.ts';
import { type CliRun, runCli } from './cli-harness.ts';

const sessionLogOf = (run: CliRun) => /^Session log: (.+\.jsonl)$/m.exec(run.stderr + run.stdout)?.[1];
const parseLines = <T>(text: string): T[] =>
  text
    .split('\n')
    .filter((entry) => entry !== '')
    .map((entry) => JSON.parse(entry) as T);

describe('agentchart demo', () => {
  const roots: string[] = [];
  let json: CliRun;
  let logFile: string;
  let log: LogEvent[];

  afterAll(async () => {
    for (const root of roots) await rm(root, { recursive: true, force: true });
  });

  it('--json streams NDJSON only and ends completed', async () => {
    json = await runCli(['demo', '--json', '--keep']);
    logFile = sessionLogOf(json)!;
    roots.push(dirname(logFile));
    expect(json.code).toBe(0);
    const events = parseLines<LiveEvent>(json.stdout);
    expect(events.length).toBeGreaterThan(20);
    expect(new Set(events.map((event) => event.type))).toEqual(
      new Set(['log', 'model.delta', 'tool.progress', 'context.usage', 'result']),
    );
    const first = events[0]!;
    expect(first.type === 'log' && first.event.type).toBe('session.start');
    expect(events.at(-1)).toMatchObject({ type: 'result', reason: 'completed', turn: 1 });
    const last = events.at(-2)!;
    expect(last.type === 'log' && last.event.type).toBe('session.end');
    const ends = events.flatMap((event) =>
      event.type === 'log' && event.event.type === 'turn.end' ? [event.event.data.reason] : [],
    );
    expect(ends).toEqual(['completed']);
    expect(json.stderr).toContain('The model is SCRIPTED: no LLM is called and no API key is needed.');
    expect(json.stderr).toContain(`(demo) while the tests run, the user steers: agent.steer("${demoSteer}")`);
    expect(json.stderr).toContain('ANTHROPIC_API_KEY=… npx agentchart run "<task>"');
  }, 90_000);

  it('writes a session log from session.start to a completed turn.end', async () => {
    log = await readLog(logFile);
    expect(log.map((event) => event.seq)).toEqual(log.map((_, index) => index));
    expect(log[0]!.type).toBe('session.start');
    expect(log.at(-1)!.type).toBe('session.end');
    expect(log.filter((event) => event.type === 'turn.end').map((event) => event.data.reason)).toEqual([
      'completed',
    ]);
    const users = log.filter((event) => event.type === 'user.message').map((event) => event.data);
    expect(users).toEqual([
      { channel: 'followup', content: demoTask, inboxId: expect.any(String) },
      { channel: 'steer', content: demoSteer, inboxId: expect.any(String) },
    ]);
  });

  it('ran the real tools: a parallel read batch, failing tests, an edit, passing tests', async () => {
    const calls = log.filter((event) => event.type === 'tool.call');
    expect(calls.map((event) => [event.step, event.data.name])).toEqual([
      [1, 'skill'],
      [1, 'glob'],
      [1, 'read_file'],
      [1, 'read_file'],
      [1, 'grep'],
      [2, 'bash'],
      [3, 'edit_file'],
      [4, 'bash'],
    ]);
    const outcomes = log.filter((event) => event.type === 'tool.result').map((event) => event.data.outcome);
    expect(outcomes).toEqual(['ok', 'ok', 'ok', 'ok', 'ok', 'error', 'ok', 'ok']);
    // Side by side: every call of step 1 started before the first of them settled.
    const firstStep = log.filter((event) => event.step === 1).map((event) => event.type);
    const started = firstStep.lastIndexOf('tool.started');
    expect(firstStep.filter((type) => type === 'tool.started')).toHaveLength(5);
    // The skill was found in the workspace, listed in the system prompt and loaded first.
    const start = log[0]!.data.config as { skills: { name: string }[]; system: string };
    expect(start.skills.map((skill) => skill.name)).toEqual(['fix-failing-tests']);
    expect(start.system).toContain('- fix-failing-tests: How to fix failing tests in this project');
    expect(started).toBeLessThan(firstStep.indexOf('tool.result'));
    // The steer arrived while step 2 ran and was claimed before step 3's request.
    const steer = log.find((event) => event.type === 'user.message' && event.data.channel === 'steer')!;
    expect(steer.turn).toBe(1);
    expect(log.find((event) => event.type === 'step.start' && event.step === 3)!.seq).toBeGreaterThan(
      steer.seq,
    );
    const fixed = await readFile(join(dirname(logFile), 'workspace', 'src/math.js'), 'utf8');
    expect(fixed.split('\n').slice(2, 5)).toEqual([
      '  let total = 0;',
      '  // Start at index 0: the loop used to begin at 1 and skipped the first value.',
      '  for (let i = 0; i < values.length; i++) total += values[i];',
    ]);
  });

  it('replay re-renders the recorded session as a transcript', async () => {
    const replay = await runCli(['replay', logFile]);
    expect(replay.code).toBe(0);
    expect(replay.stderr).toBe('');
    const key = replay.stdout
      .split('\n')
      .filter((entry) => /^(──|›|·|→|←|✗|■|»|Replay|End of replay)/.test(entry))
      .map((entry) => entry.replace(/\(\d+ lines\)$/, '(N lines)'));
    expect(key).toEqual([
      `Replay of ${logFile} (${log.length} events, recorded; no model is called)`,
      `» queued followup: ${demoTask.slice(0, 79)}…`,
      '── turn 1 ──',
      `› followup: ${demoTask}`,
      '· step 1 (scripted)',
      '→ skill fix-failing-tests',
      '→ glob **/*.js',
      '→ read_file src/math.js',
      '→ read_file test/math.test.js',
      '→ grep for \\(let in src',
      '← skill ok (N lines)',
      '← glob ok (N lines)',
      '← read_file ok (N lines)',
      '← read_file ok (N lines)',
      '← grep ok (N lines)',
      '· step 2 (scripted)',
      '→ bash node --test --test-reporter=./reporter.mjs',
      `» queued steer: ${demoSteer}`,
      '✗ bash error (N lines)',
      `› steer: ${demoSteer}`,
      '· step 3 (scripted)',
      '→ edit_file src/math.js',
      '← edit_file ok (N lines)',
      '· step 4 (scripted)',
      '→ bash node --test --test-reporter=./reporter.mjs',
      '← bash ok (N lines)',
      '· step 5 (scripted)',
      '■ turn 1 ended: completed · 5 steps · tokens in 50 · out 25 · context 10 / 32,000 tokens (0%)',
      'End of replay: 1 turn(s), 5 step(s), 8 tool call(s).',
    ]);
    expect(replay.stdout).toContain(
      'The tests fail as expected. I will start the loop at 0 and, as you asked, add a comment explaining the fix.',
    );
  });

  it('is quiet by default: no state transitions unless --states', async () => {
    const quiet = await runCli(['demo']);
    roots.push(dirname(sessionLogOf(quiet)!));
    expect(quiet.code).toBe(0);
    expect(quiet.stdout).toContain('→ edit_file src/math.js');
    expect(quiet.stdout).not.toMatch(/^ {2}(agent|turn|step|toolBatch): /m);
  });

  it('with --states shows the state transitions and says plainly the model is scripted', async () => {
    const human = await runCli(['demo', '--states']);
    const file = sessionLogOf(human)!;
    roots.push(dirname(file));
    expect(human.code).toBe(0);
    expect(human.stderr).toBe('');
    const out = human.stdout.split('\n');
    expect(out[0]).toBe(
      'This is the agentchart demo. The model is SCRIPTED: no LLM is called and no API key is needed.',
    );
    // The demo has no hook before steps, no MCP servers and no environment block: no pre-step work.
    expect(out).toContain('  turn: preStep.choosing → stepping');
    expect(out).not.toContain('  turn: preStep.choosing → preStep.hook');
    expect(out).toContain('  step: requesting → executingTools');
    // The demo's command hook: the batch waits for it, and its decision is shown.
    expect(out).toContain('  toolBatch: checking → hooking');
    expect(out).toContain('  toolBatch: hooking → running');
    expect(
      out.filter((entry) => entry === '⚑ preTool hook node .agentchart/hooks/guard.mjs pass'),
    ).toHaveLength(2);
    expect(out).toContain(
      '■ turn 1 ended: completed · 5 steps · tokens in 50 · out 25 · context 10 / 32,000 tokens (0%)',
    );
    expect(out).toContain('The workspace was removed (--keep keeps it).');
    expect(
      out.filter((entry) => entry.startsWith('That was a SCRIPTED model (no LLM was called).')),
    ).toHaveLength(1);
  }, 90_000);
});
