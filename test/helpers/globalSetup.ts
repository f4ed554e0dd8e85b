import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import pg from 'pg';
import { loadMigrations, migrate } from '../../src/db/migrate.js';
import { ADMIN_URL, databaseUrl, keptDatabasesFile } from './testDatabase.js';

/**
 * Builds the migrated template database once per migration set (named after a hash of
 * the migrations, so concurrent runs share it safely) and drops this run's databases at
 * the end.
 */
export default async function setup() {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  try {
    await client.connect();
  } catch (error) {
    throw new Error(
      `Tests need PostgreSQL at ${ADMIN_URL} (set TEST_DATABASE_URL to use another): ${(error as Error).message}`,
    );
  }
  const hash = createHash('sha256');
  for (const m of await loadMigrations()) hash.update(m.name).update(m.sql);
  const template = `onejob_tpl_${hash.digest('hex').slice(0, 12)}`;
  const run = randomBytes(3).toString('hex');
  process.env.ONEJOB_TEST_TEMPLATE = template;
  process.env.ONEJOB_TEST_RUN = run;
  try {
    await client.query('SELECT pg_advisory_lock(4242)');
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [template]);
    if (!rowCount) {
      const building = `${template}_b${run}`;
      await client.query(`CREATE DATABASE ${building}`);
      await migrate(databaseUrl(building));
      // Renamed only once complete, so no run ever clones a half-migrated template.
      await client.query(`ALTER DATABASE ${building} RENAME TO ${template}`);
    }
    await client.query('SELECT pg_advisory_unlock(4242)');
  } finally {
    await client.end();
  }
  return async () => {
    // Databases of failed tests stay for inspection (their names were printed).
    let kept: string[] = [];
    try {
      kept = readFileSync(keptDatabasesFile(run), 'utf8').split('\n').filter(Boolean);
      rmSync(keptDatabasesFile(run));
    } catch {}
    const c = new pg.Client({ connectionString: ADMIN_URL });
    await c.connect();
    try {
      const { rows } = await c.query<{ datname: string }>(
        'SELECT datname FROM pg_database WHERE datname LIKE $1',
        [`onejob\\_%\\_${run}\\_%`],
      );
      for (const { datname } of rows)
        if (!kept.includes(datname)) await c.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
    } finally {
      await c.end();
    }
  };
}
