// Fresh, migrated databases for the bench on the PostgreSQL server it is pointed at,
// one per group of scenarios so that no scenario sees another's rows.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { migrate } from '../src/db/migrate.js';
import { createServerDatabase, type ServerDatabase } from '../test/helpers/serverDatabase.js';
import { withClient } from '../test/helpers/withClient.js';

export type BenchDatabase = ServerDatabase;

export const benchRunId = () => randomBytes(3).toString('hex');

export async function createBenchDatabase(
  adminUrl: string,
  run: string,
  tag: string,
): Promise<BenchDatabase> {
  const database = await createServerDatabase(adminUrl, `onejob_bench_${run}_${tag}`);
  await migrate(database.url);
  return database;
}

export function postgresVersion(adminUrl: string): Promise<string> {
  return withClient(adminUrl, async (client) => {
    const { rows } = await client.query<{ v: string; sc: string }>(
      "SELECT current_setting('server_version') AS v, current_setting('synchronous_commit') AS sc",
    );
    return `PostgreSQL ${rows[0]!.v} (synchronous_commit=${rows[0]!.sc})`;
  });
}

/**
 * A checkpoint before a drain is measured. Each drain writes a few hundred megabytes of
 * WAL; without it, a drain that runs after another one meets the checkpoint that WAL
 * triggers, and pays full-page images for every page it touches while the one before did
 * not. Starting each drain from a checkpoint gives every drain the same cost, whatever runs
 * before it.
 */
export async function checkpoint(url: string): Promise<void> {
  await withClient(url, (client) => client.query('CHECKPOINT'));
}

/** A session of its own that counts a scenario's progress, apart from the pools it measures. */
export async function connectCounter(url: string): Promise<pg.Client> {
  const counter = new pg.Client({ connectionString: url, application_name: 'onejob-bench-counter' });
  await counter.connect();
  return counter;
}
