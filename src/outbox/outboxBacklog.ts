import type { Queryable } from '../db/createPool.js';

/** One publisher's backlog: deliveries still to make and the age of the oldest. */
export interface PublisherBacklog {
  publisher: string;
  kind: string;
  /** Deliveries not yet accepted by the broker or endpoint. */
  pending: number;
  /** Dead letters waiting for an operator. */
  dead: number;
  /** Age of the oldest pending delivery, 0 when there is none. */
  oldestAgeSeconds: number;
}

const BACKLOG_SQL = `
SELECT p.name AS publisher, p.kind,
       count(d.event_id) FILTER (WHERE d.state = 'pending')::int AS pending,
       count(d.event_id) FILTER (WHERE d.state = 'dead')::int AS dead,
       coalesce(extract(epoch FROM now() - min(d.created_at) FILTER (WHERE d.state = 'pending')), 0)::float8 AS oldest
FROM onejob.outbox_publishers p
LEFT JOIN onejob.outbox_deliveries d ON d.publisher = p.name AND d.state IN ('pending', 'dead')
GROUP BY p.name, p.kind
ORDER BY p.name`;

/**
 * Pending and dead deliveries per registered publisher.
 *
 * @example
 * ```ts
 * for (const b of await outboxBacklog(pool)) console.log(b.publisher, b.pending);
 * ```
 */
export async function outboxBacklog(db: Queryable): Promise<PublisherBacklog[]> {
  const { rows } = await db.query<{
    publisher: string;
    kind: string;
    pending: number;
    dead: number;
    oldest: number;
  }>(BACKLOG_SQL);
  return rows.map((r) => ({
    publisher: r.publisher,
    kind: r.kind,
    pending: r.pending,
    dead: r.dead,
    oldestAgeSeconds: Math.max(0, r.oldest),
  }));
}
