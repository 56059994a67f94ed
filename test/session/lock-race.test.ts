// Stale-lock takeover between real processes: a lock left by a crashed process (its pid is gone) is
// taken over by exactly one of the processes that reach for it at the same moment, in every round.
import { cp, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScript } from '../support/child-run.ts';
import { ProcessRace } from '../support/process-race.ts';

const script = 'test/fixtures/boundary/lock-contender.ts';
let root = '';
let template = '';
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'agentchart-lock-race-'));
  // The stale lock, exactly as a process that took it and then died leaves it; each round starts from a copy.
  const crashed = join(root, 'crashed');
  await mkdir(crashed);
  const run = await runScript(script, { args: [crashed, 's', 'exit-holding'] });
  expect(run).toMatchObject({ code: 0, timedOut: false });
  template = join(crashed, 's.lock');
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Runs `rounds` rounds of `contenders` processes racing for one stale lock; returns the owners per round. */
async function race(contenders: number, rounds: number): Promise<{ owners: number[]; refusals: string[] }> {
  const dir = join(root, `race-${contenders}`);
  await mkdir(dir);
  const lock = join(dir, 's.lock');
  const contest = await ProcessRace.start({ script, args: [dir, 's', 'race'], contenders });
  const owners: number[] = [];
  const refusals = new Set<string>();
  try {
    for (let round = 0; round < rounds; round++) {
      await rm(lock, { recursive: true, force: true });
      await cp(template, lock, { recursive: true });
      const answers = await contest.all({ type: 'go', round });
      owners.push(answers.filter((answer) => answer.owned === true).length);
      for (const answer of answers) {
        if (answer.owned !== true) refusals.add(String(answer.error).replace(/\d+/g, 'N'));
      }
      // Every contender has tried while the owner still holds the lock; only now is it given back.
      await contest.all({ type: 'release', round });
    }
  } finally {
    contest.close();
  }
  // Each owner gave the lock back, and no claim or temporary file was left behind.
  expect(await readdir(dir)).toEqual([]);
  return { owners, refusals: [...refusals] };
}

describe('stale-lock takeover between real processes', () => {
  it.each([
    [2, 150],
    [3, 100],
    [4, 100],
  ])(
    '%i processes, %i rounds: exactly one takes over the stale lock in every round',
    async (contenders, rounds) => {
      const { owners, refusals } = await race(contenders, rounds);
      expect(owners).toHaveLength(rounds);
      // Rounds that did not end with exactly one owner, listed so a failure says how many and which.
      const wrong = owners.flatMap((count, round) =>
        count === 1 ? [] : [`round ${round}: ${count} owners`],
      );
      expect({ wrongRounds: wrong.length, wrong }).toEqual({ wrongRounds: 0, wrong: [] });
      expect(refusals).toEqual([
        expect.stringMatching(/^ConfigError: session "s" is held by a live agent \(pid N on .+\)/),
      ]);
    },
    // A hang deadline, not a speed target: a hundred rounds of four tsx processes on a loaded two-core
    // machine can take minutes.
    300_000,
  );
});
