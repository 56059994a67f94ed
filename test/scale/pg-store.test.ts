// pgStore against a real PostgreSQL (TOOLCHAIN.md §15): the store contract every SessionStore passes,
// plus what only a server store has — schema versions and waiting for a server that went away.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConcurrencyError } from '../../src/errors/concurrency-error.ts';
import { ConfigError } from '../../src/errors/config-error.ts';
import { StoreUnavailableError } from '../../src/errors/store-unavailable-error.ts';
import { type PgStore, pgStore } from '../../src/postgres/pg-store.ts';
import {
  hasServers,
  noServers,
  type PostgresServer,
  serversRequired,
  startPostgres,
} from '../support/servers.ts';
import { runStoreContract, sampleLog } from '../support/store-contract.ts';

it('has Redis and PostgreSQL when it runs in CI (where missing servers must fail, not skip)', () => {
  expect(serversRequired && !hasServers ? noServers : 'ok').toBe('ok');
});

let server: PostgresServer | undefined;
let url = '';
const stores: PgStore[] = [];
let counter = 0;

function freshStore(options: Parameters<typeof pgStore>[1] = {}): PgStore {
  const store = pgStore(url, { schema: `contract_${++counter}`, migrate: true, ...options });
  stores.push(store);
  return store;
}

describe.skipIf(!hasServers)(`pgStore${hasServers ? '' : ` — skipped: ${noServers}`}`, () => {
  beforeAll(async () => {
    server = await startPostgres();
    url = await server.createDatabase('store');
  }, 30_000);
  afterAll(async () => {
    await Promise.all(stores.map((store) => store.close()));
    await server?.stop();
  }, 30_000);

  runStoreContract('pgStore', () => freshStore());

  it('refuses an unmigrated database, naming the fix; migrate() makes it usable, once', async () => {
    const store = freshStore({ migrate: false });
    const refused = await store.create('s').catch((error: unknown) => error);
    expect(ConfigError.isInstance(refused) && refused.message).toMatch(
      /is at schema v0; this build needs v1: run `agentchart migrate --postgres URL`/,
    );
    expect(await store.migrate()).toEqual({ from: 0, to: 1 });
    expect(await store.migrate()).toEqual({ from: 1, to: 1 });
    await store.create('s');
    expect(await store.list()).toEqual(['s']);
  });

  it('refuses an append that does not start where the log ends: ConcurrencyError, nothing written', async () => {
    const store = freshStore();
    const log = sampleLog();
    await store.create('s');
    await store.append('s', log.slice(0, 3));
    // A stale writer that still thinks the log ends at seq 2, and one that skips ahead.
    for (const batch of [log.slice(2, 4), log.slice(4, 6)]) {
      const error = await store.append('s', batch).catch((reason: unknown) => reason);
      expect(ConcurrencyError.isInstance(error)).toBe(true);
      expect((error as Error).message).toMatch(
        /another writer got there first .* nothing of this batch was written/,
      );
    }
    expect((await store.load('s')).events).toEqual(log.slice(0, 3));
    await store.append('s', log.slice(3));
    expect((await store.load('s')).events).toEqual(log);
  });

  it('waits for a server that stops and comes back; gives up after its bounded retry', async () => {
    const store = freshStore({ retry: { attempts: 60, firstDelayMs: 50, maxDelayMs: 200 } });
    const schema = `contract_${counter}`;
    const log = sampleLog();
    await store.create('w');
    await store.create('probe');
    await store.lock!('w');
    await store.append('w', log.slice(0, 2));
    await server!.pause();
    const appended = store.append('w', log.slice(2, 5));
    await new Promise((resolve) => setTimeout(resolve, 700));
    await server!.resume();
    await appended;
    expect((await store.load('w')).events).toEqual(log.slice(0, 5));
    // The lock connection died with the server. A lock call waits for the new one, which first takes
    // again the locks this store held: after it, another store cannot have "w".
    await (await store.lock!('probe')).release();
    const other = freshStore({ schema });
    await expect(other.lock!('w')).rejects.toThrow(/held by a live agent in another process/);

    const impatient = freshStore({ schema, retry: { attempts: 3, firstDelayMs: 20 } });
    await impatient.exists('w');
    await server!.pause();
    try {
      const error = await impatient.load('w').catch((reason: unknown) => reason);
      expect(StoreUnavailableError.isInstance(error)).toBe(true);
      expect((error as Error).message).toMatch(
        /load session "w": PostgreSQL did not answer after 3 attempts/,
      );
    } finally {
      await server!.resume();
    }
  }, 30_000);
});
