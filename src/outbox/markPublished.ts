import type { Queryable } from '../db/createPool.js';

const PUBLISHED_SQL = `
UPDATE onejob.outbox_deliveries
SET state = 'published', published_at = now(), last_error = NULL
WHERE publisher = $1 AND event_id = ANY($2::uuid[]) AND state = 'pending'
RETURNING event_id`;

/** Marks deliveries the broker accepted. Only pending rows change; returns how many did. */
export async function markPublished(db: Queryable, publisher: string, eventIds: string[]): Promise<number> {
  if (eventIds.length === 0) return 0;
  const { rowCount } = await db.query(PUBLISHED_SQL, [publisher, eventIds]);
  return rowCount ?? 0;
}

// A refused try counts; at maxDeliveries the delivery becomes a dead letter. The decision
// is made by the UPDATE on the row's own attempts, not on a number read earlier.
const REFUSED_SQL = `
UPDATE onejob.outbox_deliveries d
SET attempts = d.attempts + 1,
    last_error = f.error,
    state = CASE WHEN d.attempts + 1 >= $3 THEN 'dead' ELSE 'pending' END,
    dead_at = CASE WHEN d.attempts + 1 >= $3 THEN now() END,
    next_attempt_at = now() + make_interval(secs => f.delay_ms / 1000.0)
FROM unnest($2::uuid[], $4::text[], $5::float8[]) AS f(event_id, error, delay_ms)
WHERE d.publisher = $1 AND d.event_id = f.event_id AND d.state = 'pending'
RETURNING d.event_id, d.state, d.attempts`;

// The broker was not reached: note why, but the try does not count.
const UNAVAILABLE_SQL = `
UPDATE onejob.outbox_deliveries SET last_error = $3
WHERE publisher = $1 AND event_id = ANY($2::uuid[]) AND state = 'pending'`;

export interface RefusedDelivery {
  eventId: string;
  error: string;
  /** Delay before the next try if the delivery stays pending. */
  delayMs: number;
}

/** Records refused tries; returns the deliveries that became dead letters. */
export async function markRefused(
  db: Queryable,
  publisher: string,
  refused: RefusedDelivery[],
  maxDeliveries: number,
): Promise<{ eventId: string; attempts: number }[]> {
  if (refused.length === 0) return [];
  const { rows } = await db.query<{ event_id: string; state: string; attempts: number }>(REFUSED_SQL, [
    publisher,
    refused.map((r) => r.eventId),
    maxDeliveries,
    refused.map((r) => r.error.slice(0, 2000)),
    refused.map((r) => r.delayMs),
  ]);
  return rows.filter((r) => r.state === 'dead').map((r) => ({ eventId: r.event_id, attempts: r.attempts }));
}

export async function markUnavailable(
  db: Queryable,
  publisher: string,
  eventIds: string[],
  error: string,
): Promise<void> {
  if (eventIds.length === 0) return;
  await db.query(UNAVAILABLE_SQL, [publisher, eventIds, error.slice(0, 2000)]);
}
