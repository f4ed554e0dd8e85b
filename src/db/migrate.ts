import type pg from 'pg';
import { OnejobError } from '../errors/OnejobError.js';
import { MIGRATIONS, type Migration } from '../generated/migrations.js';
import { connectToPrimary } from './connectToPrimary.js';
import { withTransaction } from './withTransaction.js';

export type { Migration };

// Any constant works as long as every onejob process uses the same one.
const MIGRATION_LOCK_KEY = 0x6f6e656a; // 'onej'

/**
 * The migrations this version knows, in version order. They are compiled in from
 * migrations/*.sql (scripts/generateMigrations.mjs), so nothing is read from disk.
 */
export async function loadMigrations(): Promise<Migration[]> {
  return [...MIGRATIONS];
}

export interface MigrateResult {
  applied: string[];
  current: number;
}

/**
 * Applies pending migrations. Safe when many processes start at once: a session
 * advisory lock serialises them, and whoever comes second finds nothing to do.
 * Each migration runs in its own transaction together with its version row.
 * `upTo` stops after that version (a database left at an older schema, as an upgrade
 * test starts from).
 *
 * @example
 * ```ts
 * const { applied } = await migrate(process.env.DATABASE_URL!);
 * ```
 */
export async function migrate(
  connectionString: string,
  options: { upTo?: number } = {},
): Promise<MigrateResult> {
  const migrations = await loadMigrations();
  const client = await connectToPrimary(connectionString, { application_name: 'onejob-migrate' });
  // A server lost mid-run fails the statement in flight; its 'error' event must not end the process.
  client.on('error', () => {});
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    await client.query('CREATE SCHEMA IF NOT EXISTS onejob');
    await client.query(`CREATE TABLE IF NOT EXISTS onejob.migrations (
      version integer PRIMARY KEY,
      name text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const { rows } = await client.query<{ version: number; name: string }>(
      'SELECT version, name FROM onejob.migrations ORDER BY version',
    );
    // A version we do not know was applied by a newer onejob: its schema may not work
    // with this code, so refuse rather than run against it.
    const known = new Set(migrations.map((m) => m.version));
    const newer = rows.filter((r) => !known.has(r.version));
    if (newer.length) {
      throw new OnejobError(
        'database_newer_than_code',
        `the database has migration ${newer.map((r) => `${r.version} (${r.name})`).join(', ')}, ` +
          `which this onejob version does not know (it knows up to ${migrations.at(-1)?.version ?? 0}); ` +
          'run the onejob version that migrated it, or a newer one',
      );
    }
    const done = new Set(rows.map((r) => r.version));
    const applied: string[] = [];
    for (const m of migrations) {
      if (done.has(m.version)) continue;
      if (options.upTo !== undefined && m.version > options.upTo) break;
      try {
        await withTransaction(
          client,
          async (tx) => {
            await tx.query(m.sql);
            await tx.query('INSERT INTO onejob.migrations (version, name) VALUES ($1, $2)', [
              m.version,
              m.name,
            ]);
          },
          { begin: true },
        );
      } catch (error) {
        throw new Error(`migration ${m.name} failed: ${(error as Error).message}`, { cause: error });
      }
      applied.push(m.name);
      done.add(m.version);
    }
    return { applied, current: Math.max(0, ...done) };
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
