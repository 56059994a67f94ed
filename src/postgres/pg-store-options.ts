// What `pgStore` takes, and the schema that parses it where it enters.
import { z } from 'zod/v4';
import type { Clock } from '../core/clock.ts';
import { clockSchema, flag, milliseconds, must, positiveInteger } from '../core/host-schema.ts';
import type { RetryPolicy } from './pg-retry.ts';

export type PgStoreOptions = {
  /** The PostgreSQL schema that holds the tables (default `public`); a lowercase SQL identifier. */
  schema?: string;
  /** Apply missing migrations on first use instead of refusing an unmigrated database (default false). */
  migrate?: boolean;
  /** How long to wait for a server that is unreachable (bounded; see `RetryPolicy`). */
  retry?: Partial<RetryPolicy>;
  /** Pool size when the store makes its own pool from a connection string (default 10). */
  poolSize?: number;
  /** The clock retry pauses run on (default the system clock). */
  clock?: Clock;
};

/** `PgStoreOptions` as a JavaScript caller may pass them: an unknown key is refused, naming the nearest. */
export const pgStoreOptionsSchema = z.strictObject(
  {
    schema: z.string(must('a string')).optional(),
    migrate: flag.optional(),
    retry: z
      .strictObject(
        {
          attempts: positiveInteger.optional(),
          firstDelayMs: milliseconds.optional(),
          maxDelayMs: milliseconds.optional(),
        },
        must('an object'),
      )
      .optional(),
    poolSize: positiveInteger.optional(),
    clock: clockSchema.optional(),
  },
  must('an object'),
);
