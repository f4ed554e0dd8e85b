import type { Queryable } from '../db/createPool.js';

// A job's events are its history and stay. What goes after the retention: your own events
// (publishEvent) that every publisher's position is past and that no delivery row still
// waits on (pending or dead: cleanup cannot lose an event), and the delivery rows of
// events published by a retry. An event's delivery rows go with it (ON DELETE CASCADE).
const CLEANUP_EVENTS_SQL = `
WITH doomed AS (
  SELECT e.id, e.owner_id FROM onejob.job_events e
  WHERE e.job_id IS NULL AND e.created_at < now() - make_interval(secs => $1::float8 * 3600)
    AND NOT EXISTS (SELECT 1 FROM onejob.outbox_publishers p
                    WHERE NOT onejob.event_behind(e.xid, e.seq, p.done, p.window_end, p.window_seq))
    AND NOT EXISTS (SELECT 1 FROM onejob.outbox_retries d
                    WHERE d.event_id = e.id AND d.owner_id = e.owner_id AND d.state <> 'published')
  ORDER BY e.created_at
  LIMIT $2
  FOR UPDATE OF e SKIP LOCKED
)
DELETE FROM onejob.job_events e USING doomed WHERE e.id = doomed.id AND e.owner_id = doomed.owner_id`;

const CLEANUP_DELIVERIES_SQL = `
DELETE FROM onejob.outbox_retries
WHERE state = 'published' AND published_at < now() - make_interval(secs => $1::float8 * 3600)`;

/**
 * Deletes your own events published more than `retentionHours` ago, in batches, and the
 * records of retried deliveries as old. Returns how many events went.
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
    const { rowCount } = await db.query(CLEANUP_EVENTS_SQL, [retentionHours, Math.min(batch, max - deleted)]);
    deleted += rowCount ?? 0;
    if (!rowCount) break;
  }
  await db.query(CLEANUP_DELIVERIES_SQL, [retentionHours]);
  return deleted;
}
