import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

/** Migrations ship with the package, next to `src/` and `dist/`. */
export const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'migrations');

// Any constant works as long as every onejob process uses the same one.
const MIGRATION_LOCK_KEY = 0x6f6e656a; // 'onej'

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export async function loadMigrations(dir = MIGRATIONS_DIR): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f)).sort();
  const migrations: Migration[] = [];
  for (const file of files) {
    migrations.push({
      version: Number.parseInt(file.slice(0, 4), 10),
      name: file.replace(/\.sql$/, ''),
      sql: await readFile(join(dir, file), 'utf8'),
    });
  }
  migrations.forEach((m, i) => {
    const previous = migrations[i - 1];
    if (previous && previous.version === m.version) {
      throw new Error(`migrations ${previous.name} and ${m.name} share version ${m.version}`);
    }
  });
  return migrations;
}

export interface MigrateResult {
  applied: string[];
  current: number;
}

/**
 * Applies pending migrations. Safe when many processes start at once: a session
 * advisory lock serialises them, and whoever comes second finds nothing to do.
 * Each migration runs in its own transaction together with its version row.
 *
 * @example
 * ```ts
 * const { applied } = await migrate(process.env.DATABASE_URL!);
 * ```
 */
export async function migrate(connectionString: string): Promise<MigrateResult> {
  const migrations = await loadMigrations();
  const client = new pg.Client({ connectionString, application_name: 'onejob-migrate' });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    await client.query('CREATE SCHEMA IF NOT EXISTS onejob');
    await client.query(`CREATE TABLE IF NOT EXISTS onejob.migrations (
      version integer PRIMARY KEY,
      name text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const { rows } = await client.query<{ version: number }>('SELECT version FROM onejob.migrations');
    const done = new Set(rows.map((r) => r.version));
    const applied: string[] = [];
    for (const m of migrations) {
      if (done.has(m.version)) continue;
      await client.query('BEGIN');
      try {
        await client.query(m.sql);
        await client.query('INSERT INTO onejob.migrations (version, name) VALUES ($1, $2)', [
          m.version,
          m.name,
        ]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw new Error(`migration ${m.name} failed: ${(error as Error).message}`, { cause: error });
      }
      applied.push(m.name);
    }
    return { applied, current: migrations.at(-1)?.version ?? 0 };
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    await client.end().catch(() => undefined);
  }
}

/** Latest migration version applied in the database, or 0 when none. */
export async function appliedVersion(query: Pick<pg.Pool, 'query'>): Promise<number> {
  // Two statements: a query naming a missing table fails at parse time, whatever CASE says.
  const exists = await query.query<{ t: string | null }>(
    `SELECT to_regclass('onejob.migrations')::text AS t`,
  );
  if (!exists.rows[0]?.t) return 0;
  const { rows } = await query.query<{ v: number }>(
    'SELECT coalesce(max(version), 0)::int AS v FROM onejob.migrations',
  );
  return rows[0]?.v ?? 0;
}
