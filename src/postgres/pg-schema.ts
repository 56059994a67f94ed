// The tables of the PostgreSQL store and their versioned migrations. A database is at the version of the
// last migration recorded in agentchart_migrations; `migrate` applies the missing ones in order, in one
// transaction, under an advisory lock so that workers starting together migrate once.
import type { Pool, PoolClient } from 'pg';
import { ConfigError } from '../errors/config-error.ts';

/** The tables of one store, qualified by its schema. */
export type Tables = { schema: string; sessions: string; events: string; migrations: string };

export function tablesIn(schema: string): Tables {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema))
    throw new ConfigError(`pgStore: schema must be a lowercase SQL identifier, got "${schema}"`);
  return {
    schema,
    sessions: `"${schema}".agentchart_sessions`,
    events: `"${schema}".agentchart_events`,
    migrations: `"${schema}".agentchart_migrations`,
  };
}

type Migration = { version: number; name: string; sql: (tables: Tables) => string[] };

/** Append only: a released migration never changes; a new one gets the next version. */
const migrations: readonly Migration[] = [
  {
    version: 1,
    name: 'sessions and events',
    sql: (t) => [
      `CREATE TABLE ${t.sessions} (
         session_id text PRIMARY KEY,
         created_at timestamptz NOT NULL DEFAULT now())`,
      // One row per event, the JSON line exactly as the file store writes it (jsonb would reorder keys).
      // The primary key is what makes a second writer fail instead of interleaving.
      `CREATE TABLE ${t.events} (
         session_id text NOT NULL REFERENCES ${t.sessions} ON DELETE CASCADE,
         seq integer NOT NULL CHECK (seq >= 0),
         line text NOT NULL,
         PRIMARY KEY (session_id, seq))`,
    ],
  },
];

/** The schema version this build reads and writes. */
export const schemaVersion = migrations.at(-1)!.version;

async function versionOf(client: Pool | PoolClient, tables: Tables): Promise<number> {
  const { rows } = await client.query<{ exists: boolean }>('SELECT to_regclass($1) IS NOT NULL AS exists', [
    `${tables.schema}.agentchart_migrations`,
  ]);
  if (!rows[0]?.exists) return 0;
  const result = await client.query<{ version: number | null }>(
    `SELECT max(version) AS version FROM ${tables.migrations}`,
  );
  return result.rows[0]?.version ?? 0;
}

/** Applies the migrations the database lacks. Returns the versions before and after. */
export async function migrate(pool: Pool, tables: Tables): Promise<{ from: number; to: number }> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
      `agentchart:migrate:${tables.schema}`,
    ]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS "${tables.schema}"`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${tables.migrations} (
         version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const from = await versionOf(client, tables);
    refuseNewer(from);
    for (const migration of migrations) {
      if (migration.version <= from) continue;
      for (const statement of migration.sql(tables)) await client.query(statement);
      await client.query(`INSERT INTO ${tables.migrations} (version, name) VALUES ($1, $2)`, [
        migration.version,
        migration.name,
      ]);
    }
    await client.query('COMMIT');
    return { from, to: schemaVersion };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {
      // The link is gone; the server rolls the transaction back itself. The first error is the one to see.
    });
    throw error;
  } finally {
    client.release();
  }
}

function refuseNewer(version: number): void {
  if (version > schemaVersion)
    throw new ConfigError(
      `the PostgreSQL store is at schema v${version}, written by a newer agentchart; this build reads v${schemaVersion}`,
    );
}

/** Refuses a database whose tables this build cannot use, saying how to fix it. */
export async function assertMigrated(pool: Pool, tables: Tables): Promise<void> {
  const version = await versionOf(pool, tables);
  refuseNewer(version);
  if (version < schemaVersion)
    throw new ConfigError(
      `the PostgreSQL store (schema "${tables.schema}") is at schema v${version}; this build needs ` +
        `v${schemaVersion}: run \`agentchart migrate --postgres URL\` (or pass { migrate: true } to pgStore)`,
    );
}
