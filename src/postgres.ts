// agentchart/postgres: session logs in PostgreSQL (`pg` is an optional peer dependency: install it to use
// this subpath). Listed explicitly, like the main entry point.
export { ConcurrencyError } from './errors/concurrency-error.ts';
export { StoreUnavailableError } from './errors/store-unavailable-error.ts';
export type { RetryPolicy } from './postgres/pg-retry.ts';
export { schemaVersion } from './postgres/pg-schema.ts';
export { type PgStore, type PgStoreOptions, pgStore } from './postgres/pg-store.ts';
