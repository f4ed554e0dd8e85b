import type { Queryable } from '../db/createPool.js';

const PUBLISHED_SQL = `
UPDATE onejob.outbox_retries
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
UPDATE onejob.outbox_retries d
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
UPDATE onejob.outbox_retries SET last_error = $3
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

// Delivery rows for what the log pass could not publish: a refused try (counted, and dead
// at once if maxDeliveries is 1) or an event held behind an earlier pending one of its
// subject (no try). The retry pass takes them from here, in the subject's seq order.
const RECORD_SQL = `
INSERT INTO onejob.outbox_retries
  (event_id, owner_id, publisher, seq, subject, created_at, attempts, state, last_error, next_attempt_at, dead_at)
SELECT e.id, e.owner_id, $1, e.seq, coalesce(e.subject, e.job_id::text), e.created_at, f.attempts,
       CASE WHEN f.attempts >= $2 THEN 'dead' ELSE 'pending' END, f.error,
       now() + make_interval(secs => f.delay_ms / 1000.0), CASE WHEN f.attempts >= $2 THEN now() END
FROM unnest($3::uuid[], $4::text[], $5::int[], $6::text[], $7::float8[]) AS f(event_id, owner_id, attempts, error, delay_ms)
JOIN onejob.job_events e ON e.id = f.event_id AND e.owner_id = f.owner_id
ON CONFLICT DO NOTHING
RETURNING event_id, state, attempts`;

/** An event of the log pass that gets a delivery row instead of being behind the position. */
export interface UnpublishedEvent {
  eventId: string;
  ownerId: string;
  /** The refusal, or null for an event held behind its subject. */
  refused: { error: string; delayMs: number } | null;
}

/** Writes delivery rows for `events`; returns the ones that are dead letters at once. */
export async function recordUnpublished(
  db: Queryable,
  publisher: string,
  events: UnpublishedEvent[],
  maxDeliveries: number,
): Promise<{ eventId: string; attempts: number }[]> {
  if (events.length === 0) return [];
  const { rows } = await db.query<{ event_id: string; state: string; attempts: number }>(RECORD_SQL, [
    publisher,
    maxDeliveries,
    events.map((e) => e.eventId),
    events.map((e) => e.ownerId),
    events.map((e) => (e.refused ? 1 : 0)),
    events.map((e) => e.refused?.error.slice(0, 2000) ?? null),
    events.map((e) => e.refused?.delayMs ?? 0),
  ]);
  return rows.filter((r) => r.state === 'dead').map((r) => ({ eventId: r.event_id, attempts: r.attempts }));
}
