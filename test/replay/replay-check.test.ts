import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ReplayDivergenceError } from '../../src/errors/replay-divergence-error.ts';
import { expectReplay, readRecording } from '../../src/replay/expect-replay.ts';
import { readLog } from '../../src/session/log-text.ts';
import type { LogEvent } from '../../src/session/types.ts';
import { runCli } from '../cli/cli-harness.ts';
import { fixturePath, lookup, record, scenarios } from './scenarios.ts';

const setup = 'test/fixtures/replay-setup/scenarios.ts';

describe('agentchart replay --check', () => {
  it.each(scenarios.map((scenario) => scenario.name))('passes on the fixture %s', async (name) => {
    const result = await runCli(['replay', fixturePath(name), '--check', '--setup', setup]);
    expect(result.stdout).toMatch(/Replay check passed: .* events written again, byte for byte\./);
    expect(result.code).toBe(0);
  });

  it('exits 1 naming the first diverging seq, the tool and the field when a tool now answers differently', async () => {
    const result = await runCli([
      'replay',
      fixturePath('parallel-retry-unknown'),
      '--check',
      '--setup',
      'test/fixtures/replay-setup/lookup-changed.ts',
    ]);
    expect(result.code).toBe(1);
    expect(result.stdout.split('\n')).toEqual([
      `Replay check FAILED: ${resolve(fixturePath('parallel-retry-unknown'))} diverged at seq 13 (tool.result)`,
      '  why: lookup answered differently',
      '  data.content: "value of a" → "the value of a"',
      '  (--json prints the report with both whole lines)',
      '',
    ]);
  });

  it('--json prints the passing result as one JSON line', async () => {
    const file = fixturePath('steer-and-approvals');
    const result = await runCli(['replay', file, '--check', '--json', '--setup', setup]);
    const events = (await readLog(file)).length;
    expect(JSON.parse(result.stdout)).toEqual({ ok: true, file: resolve(file), events });
    expect(result.code).toBe(0);
  });
});

describe('expectReplay', () => {
  it('passes for every fixture with the tools it was recorded with', async () => {
    for (const scenario of scenarios)
      await expectReplay(fixturePath(scenario.name), { tools: [lookup, record], ...scenario.options });
    expect(scenarios).toHaveLength(6);
  });

  it('throws ReplayDivergenceError at the first changed event when the approver now decides otherwise', async () => {
    const error = await expectReplay(fixturePath('steer-and-approvals'), {
      tools: [lookup, record],
      permissionMode: 'default',
      approve: async () => 'deny',
    }).catch((caught: unknown) => caught);
    expect(ReplayDivergenceError.isInstance(error)).toBe(true);
    expect((error as ReplayDivergenceError).seq).toBe(11);
    expect((error as ReplayDivergenceError).actual).toContain('"outcome":"deny"');
    expect((error as ReplayDivergenceError).reason).toBe(
      'the record call r1 was decided otherwise: recorded allow_session by host, replayed deny by host',
    );
  });

  it('throws on a tampered copy naming the seq, the field and the tool', async () => {
    const recorded = await readRecording(fixturePath('parallel-retry-unknown'));
    const tampered = recorded.map((event) =>
      event.seq === 14 ? ({ ...event, data: { ...event.data, content: 'value of B' } } as LogEvent) : event,
    );
    const error = await expectReplay(tampered, { tools: [lookup, record] }).catch(
      (caught: unknown) => caught,
    );
    expect(ReplayDivergenceError.isInstance(error)).toBe(true);
    const { seq, recordedType, replayedType, reason, changes } = error as ReplayDivergenceError;
    expect({ seq, recordedType, replayedType, reason, changes }).toEqual({
      seq: 14,
      recordedType: 'tool.result',
      replayedType: 'tool.result',
      reason: 'lookup answered differently',
      changes: [
        { path: 'data.content', change: 'changed', recorded: '"value of B"', replayed: '"value of b"' },
      ],
    });
  });

  it('refuses tool and workspace flags that do not fit, naming them', async () => {
    const file = fixturePath('compactions');
    const runs = await Promise.all([
      runCli(['replay', file, '--check', '--tools', 'sometimes']),
      runCli(['replay', file, '--check', '--workspace', 'test/fixtures']),
      runCli(['replay', file, '--tools', 'live']),
    ]);
    expect(runs.map((run) => [run.code, run.stdout, run.stderr.trim()])).toEqual([
      [1, '', 'agentchart: --tools must be "recorded" or "live", got "sometimes" [cli]'],
      [1, '', 'agentchart: --workspace is for --tools live: recorded tools do not run [cli]'],
      [1, '', 'agentchart: --tools is only for replay --check [cli]'],
    ]);
  });
});
