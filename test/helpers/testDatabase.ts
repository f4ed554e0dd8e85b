// Test databases on a real PostgreSQL server: one migrated template per run, one clone per
// test file (or per test), so files run in parallel without sharing state.
import { randomBytes } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import { withClient } from './withClient.js';

/** The server tests use: TEST_DATABASE_URL, else the local PostgreSQL on 127.0.0.1:5432. */
export const ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
/** Set by globalSetup: the migrated template and this run's id (databases are named after it). */
const template = () => {
  const t = process.env.ONEJOB_TEST_TEMPLATE;
  if (!t) throw new Error('ONEJOB_TEST_TEMPLATE is unset: run tests through vitest (globalSetup)');
  return t;
};
const run = () => process.env.ONEJOB_TEST_RUN ?? 'x';

export function databaseUrl(name: string): string {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

const admin = <T>(fn: (client: pg.Client) => Promise<T>): Promise<T> => withClient(ADMIN_URL, fn);

export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/** This run's list of databases kept for failed tests; the global teardown spares them. */
export const keptDatabasesFile = (runId = run()) => join(tmpdir(), `onejob-kept-databases-${runId}.txt`);

// The databases this test file created, and whether a failed test asked to keep them.
const created: string[] = [];
let keeping = false;
let lastFailedTest = '';

/**
 * Called when a test fails: the file's databases survive its cleanup and the run's
 * teardown, and their names are printed with the test's, so the failure can be inspected.
 */
export function keepTestDatabases(testName: string): void {
  keeping = true;
  for (const name of created) reportKept(name, testName);
  lastFailedTest = testName;
}

function reportKept(name: string, testName: string) {
  appendFileSync(keptDatabasesFile(), `${name}\n`);
  process.stderr.write(`kept database ${databaseUrl(name)} of failed test "${testName}"\n`);
}

function track(name: string): TestDatabase {
  created.push(name);
  if (keeping) reportKept(name, lastFailedTest);
  return {
    name,
    url: databaseUrl(name),
    drop: async () => {
      if (keeping) return;
      await admin(async (c) => {
        // A pool ended just before may still be closing its sessions: FORCE would kill them
        // mid-close and their clients would throw an uncaught error, so let them go first.
        const deadline = Date.now() + 2_000;
        for (;;) {
          const { rows } = await c.query<{ n: number }>(
            'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1',
            [name],
          );
          if (!rows[0]?.n || Date.now() > deadline) break;
          await new Promise((r) => setTimeout(r, 25));
        }
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      });
    },
  };
}

/** A fresh, migrated database cloned from the template. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `onejob_t_${run()}_${randomBytes(5).toString('hex')}`;
  await admin(async (c) => {
    // CREATE DATABASE ... TEMPLATE fails if another session is connected to the template;
    // nothing is, but a concurrent clone can briefly hold it, so retry.
    for (let i = 0; ; i++) {
      try {
        await c.query(`CREATE DATABASE ${name} TEMPLATE ${template()}`);
        return;
      } catch (error) {
        if (i >= 20 || !/being accessed by other users/.test((error as Error).message)) throw error;
        await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
      }
    }
  });
  return track(name);
}

/** An empty database with no migrations at all (for migration tests). */
export async function createEmptyDatabase(): Promise<TestDatabase> {
  const name = `onejob_e_${run()}_${randomBytes(5).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE ${name}`));
  return track(name);
}

export { admin as withAdminClient };
