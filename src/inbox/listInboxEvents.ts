import type { InboxEvent, InboxEventsQuery } from '../contract/index.js';
import type { Queryable } from '../db/createPool.js';

/** One recorded inbox event as the wire contract shapes it, with the owner it belongs to. */
export type InboxEventView = InboxEvent & { ownerId: string };

/** The query of `GET /v1/inbox-events` (src/contract; a null source: every source), and an owner. */
export type InboxEventsFilter = Omit<InboxEventsQuery, 'source'> & {
  source?: string | null;
  ownerId?: string | undefined;
};

const LIST_SQL = `
SELECT source, event_id, owner_id, job_id, response_status, deliveries, differing_payloads, first_received_at, last_received_at
FROM onejob.inbox_events
WHERE ($1::text IS NULL OR source = $1) AND ($3::text IS NULL OR owner_id = $3)
ORDER BY first_received_at DESC, source, event_id
LIMIT $2`;

/**
 * Recorded webhook events, newest first, with how often each was delivered; `ownerId` keeps one owner's.
 *
 * @example
 * ```ts
 * const events = await listInboxEvents(pool, { source: 'shop', limit: 20 });
 * ```
 */
export async function listInboxEvents(
  db: Queryable,
  query: InboxEventsFilter = {},
): Promise<InboxEventView[]> {
  const { rows } = await db.query(LIST_SQL, [query.source ?? null, query.limit ?? 50, query.ownerId ?? null]);
  return rows.map((r) => ({
    source: r.source,
    eventId: r.event_id,
    ownerId: r.owner_id,
    jobId: r.job_id,
    responseStatus: r.response_status,
    deliveries: r.deliveries,
    differingPayloads: r.differing_payloads,
    firstReceivedAt: r.first_received_at.toISOString(),
    lastReceivedAt: r.last_received_at.toISOString(),
  }));
}
