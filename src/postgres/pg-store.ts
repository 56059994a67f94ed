import type { Pool } from 'pg';
import { type Clock, systemClock } from '../core/clock.ts';
import { parseHostValue } from '../core/host-schema.ts';
import { checkSessionId } from '../core/safe-id.ts';
import { ConcurrencyError } from '../errors/concurrency-error.ts';
import { ConfigError } from '../errors/config-error.ts';
import { formatLogLine, parseLogLine, validateSequence } from '../session/schema.ts';
import type { LoadedSession, LogEvent, SessionLock, SessionStore } from '../session/types.ts';
import { pg } from './peers.ts';
import { AdvisoryLocks } from './pg-lock.ts';
import { defaultRetry, type RetryPolicy, withRetry } from './pg-retry.ts';
import { assertMigrated, migrate, type Tables, tablesIn } from './pg-schema.ts';
import { type PgStoreOptions, pgStoreOptionsSchema } from './pg-store-options.ts';

export type { PgStoreOptions } from './pg-store-options.ts';

/** A `SessionStore` on PostgreSQL, plus what a server-backed store needs besides. */
export interface PgStore extends SessionStore {
  readonly kind: 'postgres';
  /** Applies the migrations the database lacks (what `agentchart migrate` does). */
  migrate(): Promise<{ from: number; to: number }>;
  /** Drops the lock connection, and ends the pool if the store made it. Held locks are released. */
  close(): Promise<void>;
}

/**
 * Session logs in PostgreSQL, for agents spread over processes and machines. Each flush is one multi-row
 * INSERT, and `(session_id, seq)` is the primary key: the insert lands only where the log ends, so a
 * second writer is refused with a `ConcurrencyError` (nothing of its batch written) and never leaves a
 * gap or a duplicate. A transaction has no torn line to repair. `lock()` is an advisory lock held on the
 * store's own connection: it dies with the process that held it. An unreachable server is waited for,
 * with a bounded retry, before a call fails with `StoreUnavailableError`. Every method refuses a session
 * id outside the rule all stores share (`checkSessionId`) with a `ConfigError`, so what is stored comes
 * back from `list()` byte for byte (PostgreSQL text cannot hold a NUL, nor UTF-8 a lone surrogate).
 *
 * `pg` is an optional peer dependency: install it beside agentchart to use this subpath (without it, importing
 * `agentchart/postgres` throws a `ConfigError` saying so).
 *
 * @throws ConfigError when an option is unknown or wrong (`pgStore: unknown option "poolsize" (did you mean
 * "poolSize"?)`), or `source` is neither a pool nor a connection string.
 *
 * @example
 * import { pgStore } from 'agentchart/postgres';
 * const store = pgStore(process.env.DATABASE_URL!);
 * await store.migrate();                       // once per database (or `agentchart migrate`)
 * const system = createAgentSystem({ model, store });
 */
export function pgStore(source: Pool | string, options: PgStoreOptions = {}): PgStore {
  return new PostgresSessionStore(source, parseHostValue('pgStore', pgStoreOptionsSchema, options));
}

class PostgresSessionStore implements PgStore {
  readonly kind = 'postgres';
  private readonly pool: Pool;
  private readonly ownsPool: boolean;
  private readonly tables: Tables;
  private readonly retry: RetryPolicy;
  private readonly clock: Clock;
  private readonly locks: AdvisoryLocks;
  private ready: Promise<void> | undefined;
  // One write queue per session keeps appends in call order when callers do not wait; an idle session
  // has no entry.
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(
    source: Pool | string,
    private readonly options: PgStoreOptions,
  ) {
    if (typeof source === 'string') {
      this.pool = new pg.Pool({ connectionString: source, max: options.poolSize ?? 10 });
      this.ownsPool = true;
      // An idle client whose server went away reports here; without a listener Node would crash. The
      // next query reconnects (and waits, with the retry policy).
      this.pool.on('error', () => {});
    } else if (source instanceof pg.Pool || typeof (source as { query?: unknown })?.query === 'function') {
      this.pool = source;
      this.ownsPool = false;
    } else {
      throw new ConfigError('pgStore: pass a pg Pool or a connection string');
    }
    this.tables = tablesIn(options.schema ?? 'public');
    this.retry = { ...defaultRetry, ...options.retry };
    this.clock = options.clock ?? systemClock;
    const connection = typeof source === 'string' ? { connectionString: source } : this.pool.options;
    this.locks = new AdvisoryLocks({
      newClient: () => new pg.Client(connection),
      namespace: this.tables.schema,
      retry: this.retry,
      clock: this.clock,
    });
  }

  migrate(): Promise<{ from: number; to: number }> {
    return this.retried('migrate', () => migrate(this.pool, this.tables));
  }

  async create(sessionId: string): Promise<void> {
    checkSessionId(sessionId);
    await this.prepared();
    const inserted = await this.retried(`create session "${sessionId}"`, () =>
      this.pool.query(`INSERT INTO ${this.tables.sessions} (session_id) VALUES ($1) ON CONFLICT DO NOTHING`, [
        sessionId,
      ]),
    );
    if (inserted.rowCount === 0)
      throw new ConfigError(`session "${sessionId}" already exists in the PostgreSQL store`);
  }

  async append(sessionId: string, events: readonly LogEvent[]): Promise<void> {
    checkSessionId(sessionId);
    // Serialise now: the caller may reuse or mutate its events after this call returns.
    const lines = events.map((event) => formatLogLine(event).slice(0, -1));
    const seqs = events.map((event) => event.seq);
    await this.enqueue(sessionId, async () => {
      await this.prepared();
      if (seqs.length === 0) return void (await this.requireSession(sessionId));
      await this.retried(`append to session "${sessionId}"`, (attempt) =>
        this.insert(sessionId, seqs, lines, attempt),
      );
    });
  }

  async load(sessionId: string): Promise<LoadedSession> {
    checkSessionId(sessionId);
    return this.enqueue(sessionId, async () => {
      await this.prepared();
      // One statement, so one snapshot: the session row and every event committed when it began.
      const { rows } = await this.retried(`load session "${sessionId}"`, () =>
        this.pool.query<{ line: string | null }>(
          `SELECT e.line FROM ${this.tables.sessions} s LEFT JOIN ${this.tables.events} e
             ON e.session_id = s.session_id WHERE s.session_id = $1 ORDER BY e.seq`,
          [sessionId],
        ),
      );
      if (rows.length === 0) throw missing(sessionId);
      const lines = rows.flatMap((row) => (row.line === null ? [] : [row.line]));
      const events = lines.map((line, index) => parseLogLine(line, index + 1));
      validateSequence(events);
      return { events, warnings: [] };
    });
  }

  async exists(sessionId: string): Promise<boolean> {
    checkSessionId(sessionId);
    await this.prepared();
    const { rowCount } = await this.retried(`find session "${sessionId}"`, () =>
      this.pool.query(`SELECT 1 FROM ${this.tables.sessions} WHERE session_id = $1`, [sessionId]),
    );
    return (rowCount ?? 0) > 0;
  }

  async remove(sessionId: string): Promise<void> {
    checkSessionId(sessionId);
    await this.prepared();
    await this.retried(`remove session "${sessionId}"`, () =>
      this.pool.query(`DELETE FROM ${this.tables.sessions} WHERE session_id = $1`, [sessionId]),
    );
  }

  async list(): Promise<string[]> {
    await this.prepared();
    const { rows } = await this.retried('list sessions', () =>
      this.pool.query<{ session_id: string }>(
        `SELECT session_id FROM ${this.tables.sessions} ORDER BY session_id COLLATE "C"`,
      ),
    );
    return rows.map((row) => row.session_id);
  }

  async lock(sessionId: string): Promise<SessionLock> {
    checkSessionId(sessionId);
    await this.prepared();
    return this.locks.lock(sessionId);
  }

  async close(): Promise<void> {
    await this.locks.close();
    if (this.ownsPool) await this.pool.end();
  }

  /**
   * The batch goes in only if the log ends right before its first seq (checked in the same statement),
   * and the primary key refuses a seq another writer committed meanwhile. After a lost connection the
   * earlier attempt may have committed: rows that hold exactly these lines are that attempt, not a rival.
   */
  private async insert(sessionId: string, seqs: number[], lines: string[], attempt: number): Promise<void> {
    const { events } = this.tables;
    try {
      const { rowCount } = await this.pool.query(
        `INSERT INTO ${events} (session_id, seq, line)
           SELECT $1, batch.seq, batch.line FROM unnest($2::integer[], $3::text[]) AS batch(seq, line)
           WHERE coalesce((SELECT max(seq) + 1 FROM ${events} WHERE session_id = $1), 0) = $4`,
        [sessionId, seqs, lines, seqs[0]],
      );
      if (rowCount !== 0) return;
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code === '23503') throw missing(sessionId, error);
      if (code !== '23505') throw error;
      if (attempt > 1 && (await this.alreadyWritten(sessionId, seqs, lines))) return;
      throw rival(sessionId, seqs[0]!, error);
    }
    if (attempt > 1 && (await this.alreadyWritten(sessionId, seqs, lines))) return;
    await this.requireSession(sessionId);
    const end = await this.pool.query<{ next: number }>(
      `SELECT coalesce(max(seq) + 1, 0) AS next FROM ${events} WHERE session_id = $1`,
      [sessionId],
    );
    throw rival(sessionId, seqs[0]!, undefined, end.rows[0]?.next);
  }

  private async alreadyWritten(sessionId: string, seqs: number[], lines: string[]): Promise<boolean> {
    const { rows } = await this.pool.query<{ seq: number; line: string }>(
      `SELECT seq, line FROM ${this.tables.events} WHERE session_id = $1 AND seq = ANY($2::integer[])`,
      [sessionId, seqs],
    );
    const written = new Map(rows.map((row) => [row.seq, row.line]));
    return seqs.every((seq, index) => written.get(seq) === lines[index]);
  }

  private async requireSession(sessionId: string): Promise<void> {
    if (!(await this.exists(sessionId))) throw missing(sessionId);
  }

  /** The schema check (or migration) once per store, waiting for the server like any call. */
  private prepared(): Promise<void> {
    this.ready ??= this.retried('check the schema', async () => {
      if (this.options.migrate) await migrate(this.pool, this.tables);
      else await assertMigrated(this.pool, this.tables);
    }).catch((error: unknown) => {
      this.ready = undefined;
      throw error;
    });
    return this.ready;
  }

  private retried<T>(what: string, operation: (attempt: number) => Promise<T>): Promise<T> {
    return withRetry(what, this.retry, this.clock, operation);
  }

  private enqueue<T>(sessionId: string, work: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(sessionId) ?? Promise.resolve();
    const next = previous.then(work, work);
    const settled = next.then(
      () => undefined,
      () => undefined,
    );
    this.queues.set(sessionId, settled);
    void settled.then(() => {
      if (this.queues.get(sessionId) === settled) this.queues.delete(sessionId);
    });
    return next;
  }
}

function missing(sessionId: string, cause?: unknown): ConfigError {
  return new ConfigError(`session "${sessionId}" does not exist in the PostgreSQL store`, { cause });
}

function rival(sessionId: string, from: number, cause?: unknown, end?: number): ConcurrencyError {
  const where = end === undefined ? `seq ${from} is already written` : `the log ends before seq ${end}`;
  return new ConcurrencyError(
    `session "${sessionId}": another writer got there first (${where}, this writer appends from seq ${from}); ` +
      'nothing of this batch was written. Its view of the session is stale: stop writing and resume it.',
    { cause },
  );
}
