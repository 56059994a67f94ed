import { describe, expect, it } from 'vitest';
import { ReplayDivergenceError } from '../../src/errors/replay-divergence-error.ts';
import { expectReplay } from '../../src/runtime/expect-replay.ts';
import { runCli } from '../cli/cli-harness.ts';
import { fixturePath, lookup, record, scenarios } from './scenarios.ts';

const setup = 'test/fixtures/replay-setup/scenarios.ts';

describe('agentchart replay --check', () => {
  it.each(scenarios.map((scenario) => scenario.name))('passes on the fixture %s', async (name) => {
    const result = await runCli(['replay', fixturePath(name), '--check', '--setup', setup]);
    expect(result.stdout).toMatch(/Replay check passed: .* events written again, byte for byte\./);
    expect(result.code).toBe(0);
  });

  it('exits 1 naming the first diverging seq and both lines when a tool now answers differently', async () => {
    const result = await runCli([
      'replay',
      fixturePath('parallel-retry-unknown'),
      '--check',
      '--setup',
      'test/fixtures/replay-setup/lookup-changed.ts',
    ]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('diverged at seq 13');
    expect(result.stdout).toContain('recorded: {"v":1,"seq":13');
    expect(result.stdout).toContain('"content":"value of a"');
    expect(result.stdout).toContain('"content":"the value of a"');
  });
});

describe('expectReplay', () => {
  it('passes for every fixture with the tools it was recorded with', async () => {
    for (const scenario of scenarios)
      await expectReplay(fixturePath(scenario.name), { tools: [lookup, record], ...scenario.options });
    expect(scenarios).toHaveLength(5);
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
  });
});
