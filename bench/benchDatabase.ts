// Fresh, migrated databases for the bench on the PostgreSQL server it is pointed at,
// one per group of scenarios so that no scenario sees another's rows.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { migrate } from '../src/db/migrate.js';

export interface BenchDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

function withDatabase(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function admin(adminUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export const benchRunId = () => randomBytes(3).toString('hex');

export async function createBenchDatabase(
  adminUrl: string,
  run: string,
  tag: string,
): Promise<BenchDatabase> {
  const name = `onejob_bench_${run}_${tag}`;
  await admin(adminUrl, `CREATE DATABASE ${name}`);
  const url = withDatabase(adminUrl, name);
  await migrate(url);
  return { name, url, drop: () => admin(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

export async function postgresVersion(adminUrl: string): Promise<string> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ v: string; sc: string }>(
      "SELECT current_setting('server_version') AS v, current_setting('synchronous_commit') AS sc",
    );
    return `PostgreSQL ${rows[0]!.v} (synchronous_commit=${rows[0]!.sc})`;
  } finally {
    await client.end();
  }
}

/**
 * A checkpoint before a drain is measured. Each drain writes a few hundred megabytes of
 * WAL; without it, a drain that runs after another one meets the checkpoint that WAL
 * triggers, and pays full-page images for every page it touches while the one before did
 * not. Starting each drain from a checkpoint gives every drain the same cost, whatever runs
 * before it.
 */
export async function checkpoint(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('CHECKPOINT');
  } finally {
    await client.end();
  }
}

/** A session of its own that counts a scenario's progress, apart from the pools it measures. */
export async function connectCounter(url: string): Promise<pg.Client> {
  const counter = new pg.Client({ connectionString: url, application_name: 'onejob-bench-counter' });
  await counter.connect();
  return counter;
}
