import type { Queryable } from '../../src/db/createPool.js';

// A dead letter as the relay leaves one after maxDeliveries refused tries: the event's
// retry row for the publisher, dead, whether or not the publisher's position was past it.
const MARK_DEAD_SQL = `
INSERT INTO onejob.outbox_retries (event_id, owner_id, publisher, seq, subject, created_at, state, attempts, last_error, dead_at)
SELECT event_id, owner_id, publisher, seq, subject, created_at, 'dead', 5, 'refused', now()
FROM onejob.outbox_deliveries WHERE subject = $1 AND ($2::text IS NULL OR publisher = $2)
ON CONFLICT (event_id, publisher, owner_id) DO UPDATE
  SET state = 'dead', attempts = 5, last_error = 'refused', dead_at = now(), published_at = NULL
RETURNING event_id`;

/** Makes every event of `subject` a dead letter for `publisher` (or for every registered publisher); returns their ids. */
export async function markDead(db: Queryable, subject: string, publisher?: string): Promise<string[]> {
  const { rows } = await db.query<{ event_id: string }>(MARK_DEAD_SQL, [subject, publisher ?? null]);
  return rows.map((r) => r.event_id);
}
