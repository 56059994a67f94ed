// `agentchart migrate`: the PostgreSQL store's tables. Apart from the BullMQ commands, so it needs only pg.
import { pgStore } from '../../postgres/pg-store.ts';
import { CliError } from '../cli-error.ts';
import { type CliIo, line } from '../terminal/io.ts';

/** `agentchart migrate --postgres URL`: creates or updates the store's tables. */
export async function migrateCommand(flags: { postgres?: string }, io: CliIo): Promise<number> {
  if (flags.postgres === undefined)
    throw new CliError('agentchart migrate needs --postgres URL', { exitCode: 2 });
  const store = pgStore(flags.postgres);
  try {
    const { from, to } = await store.migrate();
    line(
      io.stdout,
      from === to ? `agentchart: schema already at v${to}` : `agentchart: migrated schema v${from} → v${to}`,
    );
    return 0;
  } finally {
    await store.close();
  }
}
