// Two processes on one PostgreSQL session: exactly one holds the lease in every round (the other gets the
// clear error), and writers that race past the lease can never interleave: a refused batch is a
// ConcurrencyError with nothing written, so the log has no gap and no duplicate.
import { describe, expect, it } from 'vitest';
import { pgStore } from '../../src/postgres/pg-store.ts';
import { isEvent, type LogEventOf } from '../../src/session/types.ts';
import { ProcessRace } from '../support/process-race.ts';
import { hasServers, noServers, useServers } from '../support/servers.ts';
import { makeEvent } from '../support/store-contract.ts';

describe.skipIf(!hasServers)(
  `two processes, one PostgreSQL session${hasServers ? '' : ` — skipped: ${noServers}`}`,
  () => {
    const servers = useServers({ redis: false });

    it('gives the lease to exactly one in each of 150 rounds; the writes of both never interleave', async () => {
      const url = await servers.postgres.createDatabase('writers');
      const store = pgStore(url, { migrate: true });
      const rounds = 150;
      for (let round = 0; round < rounds; round++) await store.create(`lease-${round}`);
      await store.create('shared');
      await store.append('shared', [makeEvent(0, 'session.start', { agentId: 'shared', config: {} })]);
      const race = await ProcessRace.start({
        script: 'test/fixtures/scale/pg-contender.ts',
        args: [url],
        contenders: 2,
      });
      try {
        const owners: number[] = [];
        const refusals = new Set<string>();
        for (let round = 0; round < rounds; round++) {
          const answers = await race.all({ type: 'lock', round });
          owners.push(answers.filter((answer) => answer.owned === true).length);
          for (const answer of answers)
            if (answer.owned !== true) refusals.add(String(answer.error).replace(/\d+/g, 'N'));
          await race.all({ type: 'release', round });
        }
        expect(owners).toEqual(Array.from({ length: rounds }, () => 1));
        expect([...refusals]).toEqual([
          'ConfigError: session "lease-N" is held by a live agent in another process using this PostgreSQL store; dispose that agent first',
        ]);

        let refused = 0;
        for (let round = 0; round < 40; round++) {
          const answers = await race.all({ type: 'append', round });
          refused += answers.reduce((sum, answer) => sum + Number(answer.refused), 0);
        }
        const { events } = await store.load('shared'); // checks seq is contiguous from 0
        const notes = events.filter((event) =>
          isEvent(event, 'inbox.queued'),
        ) as LogEventOf<'inbox.queued'>[];
        // 2 writers × 40 rounds × 3 events, each written once, every batch whole and in its own order.
        expect(events.length).toBe(1 + 2 * 40 * 3);
        expect(new Set(notes.map((event) => event.data.id)).size).toBe(notes.length);
        for (let at = 0; at < notes.length; at += 3) {
          const batch: string[] = notes.slice(at, at + 3).map((event) => event.data.id);
          expect(batch.map((id) => id.replace(/-\d+$/, ''))).toEqual(
            Array(3).fill(batch[0]!.replace(/-\d+$/, '')),
          );
          expect(batch.map((id) => id.slice(-1))).toEqual(['0', '1', '2']);
        }
        // The writers did collide (they start each round together): the store refused, never interleaved.
        expect(refused).toBeGreaterThan(0);
      } finally {
        race.close();
        await store.close();
      }
    }, 60_000);
  },
);
