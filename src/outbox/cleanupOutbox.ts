import type { Queryable } from '../db/createPool.js';

// Only events every publisher has published (or that no publisher ever took) and that are
// older than the retention go. Pending deliveries and dead letters are never deleted,
// so cleanup cannot lose an event. Deliveries go with their event (ON DELETE CASCADE).
const CLEANUP_SQL = `
WITH doomed AS (
  SELECT o.id, o.owner_id FROM onejob.outbox o
  WHERE o.created_at < now() - make_interval(secs => $1::float8 * 3600)
    AND NOT EXISTS (SELECT 1 FROM onejob.outbox_deliveries d WHERE d.event_id = o.id AND d.owner_id = o.owner_id AND d.state <> 'published')
  ORDER BY o.created_at
  LIMIT $2
  FOR UPDATE OF o SKIP LOCKED
)
DELETE FROM onejob.outbox o USING doomed WHERE o.id = doomed.id AND o.owner_id = doomed.owner_id`;

/**
 * Deletes published events older than `retentionHours`, in batches. Returns how many went.
 *
 * @example
 * ```ts
 * const deleted = await cleanupOutbox(pool, 168, { batchSize: 1000 }); // published more than a week ago
 * ```
 */
export async function cleanupOutbox(
  db: Queryable,
  retentionHours: number,
  options: { batchSize?: number; maxRows?: number } = {},
): Promise<number> {
  const batch = options.batchSize ?? 1_000;
  const max = options.maxRows ?? Number.POSITIVE_INFINITY;
  let deleted = 0;
  while (deleted < max) {
    const { rowCount } = await db.query(CLEANUP_SQL, [retentionHours, Math.min(batch, max - deleted)]);
    deleted += rowCount ?? 0;
    if (!rowCount) break;
  }
  return deleted;
}
