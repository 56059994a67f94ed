// Session locks as PostgreSQL advisory locks, all held on one connection of the store's own: a lock
// lives exactly as long as that connection, so a worker that crashes (or is cut off) frees its sessions
// without anyone guessing about pids; the server drops the locks of a closed connection within
// milliseconds. Advisory locks are re-entrant per connection, so claims inside this process are checked
// here first, synchronously: of the callers in one process exactly one reaches the server.
import type { Client } from 'pg';
import type { Clock } from '../core/clock.ts';
import { ConfigError } from '../errors/config-error.ts';
import type { SessionLock } from '../session/types.ts';
import { isUnavailable, type RetryPolicy, withRetry } from './pg-retry.ts';

export type LockOptions = {
  /** A new, unconnected client for the lock connection. */
  newClient: () => Client;
  /** Names the lock space, so stores in different schemas never share a lock. */
  namespace: string;
  retry: RetryPolicy;
  clock: Clock;
};

export class AdvisoryLocks {
  // Claimed in this process (being locked, or locked); `owned`: confirmed by the server.
  private readonly held = new Set<string>();
  private readonly owned = new Set<string>();
  private client: Client | undefined;
  private connecting: Promise<Client> | undefined;
  private closed = false;
  // pg wants one query at a time per client: lock and unlock queries wait their turn here.
  private turn: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: LockOptions) {}

  /** Claims `sessionId` for this process, or rejects with `ConfigError` while anyone else holds it. */
  async lock(sessionId: string): Promise<SessionLock> {
    if (this.closed) throw new ConfigError('pgStore: the store is closed');
    if (this.held.has(sessionId)) throw heldError(sessionId, 'in this process');
    this.held.add(sessionId);
    let won = false;
    try {
      won = await withRetry(
        `lock session "${sessionId}"`,
        this.options.retry,
        this.options.clock,
        async () => {
          const client = await this.connection();
          try {
            return await this.tryLock(client, sessionId);
          } catch (error) {
            // A link that broke before it said so: drop it, so the next try opens a new one.
            if (isUnavailable(error)) this.lost(client);
            throw error;
          }
        },
      );
    } finally {
      if (!won) this.held.delete(sessionId);
    }
    if (!won) throw heldError(sessionId, 'in another process using this PostgreSQL store');
    this.owned.add(sessionId);
    let holding = true;
    return {
      release: async () => {
        if (!holding) return;
        holding = false;
        this.held.delete(sessionId);
        this.owned.delete(sessionId);
        const client = this.client;
        // A lost connection took the lock with it: nothing to unlock then.
        if (client)
          await this.query(client, 'SELECT pg_advisory_unlock(hashtextextended($1, 0))', sessionId).catch(
            () => {
              // The connection broke under the unlock, which releases every lock it held.
            },
          );
      },
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    const client = this.client ?? (await this.connecting?.catch(() => undefined));
    this.client = undefined;
    await client?.end().catch(() => {
      // Already broken: ending it has nothing left to free.
    });
  }

  private key(sessionId: string): string {
    return `agentchart:session:${this.options.namespace}:${sessionId}`;
  }

  private async tryLock(client: Client, sessionId: string): Promise<boolean> {
    const rows = await this.query(
      client,
      'SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS locked',
      sessionId,
    );
    return rows[0]?.locked === true;
  }

  private query(client: Client, sql: string, sessionId: string): Promise<Array<{ locked?: boolean }>> {
    const result = this.turn.then(() => client.query<{ locked?: boolean }>(sql, [this.key(sessionId)]));
    this.turn = result.catch(() => undefined);
    return result.then((answer) => answer.rows);
  }

  /** The lock connection, opened on first use and again after it was lost. */
  private connection(): Promise<Client> {
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= this.open().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async open(): Promise<Client> {
    const client = this.options.newClient();
    const lost = () => this.lost(client);
    // Without an 'error' listener a server that goes away would crash the process.
    client.on('error', lost);
    client.on('end', lost);
    await client.connect().catch(async (error: unknown) => {
      await client.end().catch(() => undefined);
      throw error;
    });
    if (this.closed) {
      await client.end();
      throw new ConfigError('pgStore: the store is closed');
    }
    // Sessions this process still holds lost their server-side lock with the old connection: take them
    // again. One another process took meanwhile stays theirs; our next append to it then fails with a
    // ConcurrencyError instead of interleaving.
    for (const sessionId of this.owned) await this.tryLock(client, sessionId);
    this.client = client;
    return client;
  }

  private lost(client: Client): void {
    if (this.client !== client) return;
    this.client = undefined;
    client.end().catch(() => {
      // Already broken: ending it only frees the socket.
    });
    if (this.closed || this.owned.size === 0) return;
    void withRetry('take session locks again', this.options.retry, this.options.clock, () =>
      this.connection(),
    ).catch(() => {
      // Still unreachable after the bounded wait: the next lock() call connects again; until then the
      // primary key keeps a second writer from interleaving.
    });
  }
}

function heldError(sessionId: string, where: string): ConfigError {
  return new ConfigError(`session "${sessionId}" is held by a live agent ${where}; dispose that agent first`);
}
