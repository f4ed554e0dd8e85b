// Where the worker's two batch statements go, the claim and the completion: the engine's
// kept-plan pool (src/db/keptPlanPool.ts) if its connections really carry the settings,
// otherwise the shared pool. The first batch checks once. A pooler nobody declared (PgBouncer
// in session mode is allowed without declaring it) refuses the settings' startup parameter,
// and one configured to ignore it would hand out sessions without them: either way the
// worker plans its batches per statement, as behind a declared pooler, and says so once.
import type { Logger } from 'pino';
import type { Queryable } from '../db/createPool.js';
import { KEPT_PLAN_SETTINGS } from '../db/keptPlanPool.js';
import type { WorkerDeps } from '../engine/engineDeps.js';

/** A connection for the batch statements, and whether it keeps their plans. */
export interface BatchDb {
  readonly db: Queryable;
  readonly keptPlans: boolean;
}

const SETTINGS_SQL = 'SELECT name, setting FROM pg_settings WHERE name = ANY($1::text[])';

/** Resolves, once, to the kept-plan pool or the shared pool; a database outage is thrown and tried again next time. */
export function batchDbChooser(
  deps: Pick<WorkerDeps, 'pool' | 'keptPlanPool'>,
  log: Logger,
): () => Promise<BatchDb> {
  const shared: BatchDb = { db: deps.pool, keptPlans: false };
  const kept = deps.keptPlanPool;
  if (!kept) return () => Promise.resolve(shared);
  let chosen: Promise<BatchDb> | undefined;
  async function check(pool: NonNullable<typeof kept>): Promise<BatchDb> {
    try {
      const { rows } = await pool.query<{ name: string; setting: string }>(SETTINGS_SQL, [
        Object.keys(KEPT_PLAN_SETTINGS),
      ]);
      const have = Object.fromEntries(rows.map((r) => [r.name, r.setting]));
      const missing = Object.entries(KEPT_PLAN_SETTINGS).filter(([name, value]) => have[name] !== value);
      if (missing.length === 0) return { db: pool, keptPlans: true };
      log.warn(
        { missing: missing.map(([name]) => name) },
        'the database session did not take the worker settings (a pooler in between?); claims and completions are planned per batch',
      );
    } catch (error) {
      // Refused, or the database is down: the shared pool tells which (an outage throws here).
      await deps.pool.query('SELECT 1');
      log.warn(
        { err: error },
        'the database refused the worker session settings (a pooler in between?); claims and completions are planned per batch',
      );
    }
    return shared;
  }
  return () => {
    chosen ??= check(kept).catch((error: unknown) => {
      chosen = undefined;
      throw error;
    });
    return chosen;
  };
}
