// (i) Intake through PgBouncer in transaction mode against the same intake straight to
// PostgreSQL: onejob's library `jobs.create` on a pool of the same size, each on a fresh
// database, PgBouncer holding as many server connections as the pool has clients, so the
// ratio is the cost of the hop and of unnamed statements (planned at every run).
import { pgBouncerPath, startPgBouncer } from '../../test/helpers/startPgBouncer.js';
import type { LoadResult } from '../measureLoad.js';
import { type LibraryRun, libraryCreate } from './libraryCreate.js';

/** Undefined when PgBouncer is installed; otherwise why the scenario is skipped. */
export function poolerUnavailable(): string | undefined {
  return pgBouncerPath()
    ? undefined
    : 'skipped: pgbouncer is not installed (Debian: apt-get install pgbouncer; or set PGBOUNCER to its path)';
}

/** `jobs.create` through PgBouncer (pool_mode = transaction) on database `name` at `r.url`. */
export async function poolerIntake(
  r: LibraryRun,
  name: string,
  keyPrefix: string,
): Promise<LoadResult & { note: string }> {
  const bouncer = await startPgBouncer({ database: name, serverUrl: r.url, poolSize: r.poolSize });
  try {
    const result = await libraryCreate(
      { ...r, url: bouncer.url, database: { pooler: 'transaction' } },
      keyPrefix,
    );
    return { ...result, note: `PgBouncer, pool_mode = transaction, default_pool_size = ${r.poolSize}` };
  } finally {
    await bouncer.stop();
  }
}
