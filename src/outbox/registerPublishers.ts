import type pg from 'pg';
import { withTransaction } from '../db/withTransaction.js';

const KNOWN_SQL = `SELECT name FROM onejob.outbox_publishers WHERE name = ANY($1::text[])`;

// SHARE conflicts with the ROW EXCLUSIVE lock every outbox INSERT takes: it waits for the
// writers in flight to commit and holds new ones back until the publisher row is
// committed. Without it, an event written while the publisher is being registered could
// be missed by both the backfill (not yet committed) and the trigger (publisher not yet
// visible).
const LOCK_SQL = `LOCK TABLE onejob.outbox IN SHARE MODE`;

const INSERT_SQL = `
INSERT INTO onejob.outbox_publishers (name, kind)
SELECT * FROM unnest($1::text[], $2::text[])
ON CONFLICT (name) DO NOTHING
RETURNING name`;

// A new publisher takes over every event not yet published anywhere: on a fresh database
// that is everything written before the first relay started; on a running system it is
// the current backlog. History already published elsewhere is not replayed to it.
const BACKFILL_SQL = `
INSERT INTO onejob.outbox_deliveries (event_id, owner_id, publisher, seq, subject, created_at)
SELECT o.id, o.owner_id, p.name, o.seq, o.subject, o.created_at
FROM onejob.outbox o CROSS JOIN unnest($1::text[]) AS p(name)
WHERE NOT EXISTS (SELECT 1 FROM onejob.outbox_deliveries d
                  WHERE d.event_id = o.id AND d.owner_id = o.owner_id AND d.state = 'published')
ON CONFLICT DO NOTHING`;

/**
 * Makes sure every publisher has a row, so the outbox trigger creates its deliveries.
 * Returns the names that were new.
 */
export async function registerPublishers(
  pool: pg.Pool,
  publishers: { name: string; kind: string }[],
): Promise<string[]> {
  const names = publishers.map((p) => p.name);
  const { rows: known } = await pool.query<{ name: string }>(KNOWN_SQL, [names]);
  if (known.length === names.length) return [];
  return withTransaction(pool, async (tx) => {
    await tx.query(LOCK_SQL);
    const { rows } = await tx.query<{ name: string }>(INSERT_SQL, [names, publishers.map((p) => p.kind)]);
    const added = rows.map((r) => r.name);
    if (added.length > 0) await tx.query(BACKFILL_SQL, [added]);
    return added;
  });
}
