// Two processes resume one session at the same moment, while its lock still names the pid of the crashed
// process that wrote it: exactly one resumes, the other is refused with ConfigError, and the log stays
// loadable with one more turn per round.
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fileStore } from '../../src/index.ts';
import { runScript } from '../support/child-run.ts';
import { ProcessRace } from '../support/process-race.ts';

const script = 'test/fixtures/boundary/resume-contender.ts';
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('two processes resume a crashed session at once', () => {
  it('exactly one resumes in every round; the other gets ConfigError; the log stays loadable', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentchart-resume-race-'));
    dirs.push(dir);
    const crash = await runScript(script, { args: [dir, 's', 'crash'] });
    expect(crash).toMatchObject({ code: 0, timedOut: false });
    // Kept aside: each round starts from the lock exactly as the crashed process left it.
    const stale = join(dir, 'stale.lock');
    await cp(join(dir, 's.lock'), stale, { recursive: true });

    const rounds = 20;
    const contest = await ProcessRace.start({ script, args: [dir, 's', 'race'], contenders: 2 });
    const outcomes: string[] = [];
    try {
      for (let round = 0; round < rounds; round++) {
        await rm(join(dir, 's.lock'), { recursive: true, force: true });
        await cp(stale, join(dir, 's.lock'), { recursive: true });
        const answers = await contest.all({ type: 'go', round });
        const refused = answers
          .filter((answer) => answer.owned !== true)
          .map((answer) => String(answer.error));
        outcomes.push(
          refused.length === 1 && /^ConfigError: session "s" is held by a live agent/.test(refused[0]!)
            ? 'one resumed, one refused'
            : `${2 - refused.length} resumed: ${refused.join(' | ')}`,
        );
        await contest.all({ type: 'release', round });
      }
    } finally {
      contest.close();
    }
    expect(outcomes).toEqual(new Array(rounds).fill('one resumed, one refused'));
    const { events, warnings } = await fileStore(dir).load('s');
    expect(warnings).toEqual([]);
    const questions = events
      .filter((event) => event.type === 'user.message')
      .map((event) => event.data.content);
    expect(questions).toEqual([
      'the first question',
      ...Array.from({ length: rounds }, (_, round) => `question of round ${round}`),
    ]);
  }, 30_000);
});
