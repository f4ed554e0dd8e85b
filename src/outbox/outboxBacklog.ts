import type { Queryable } from '../db/createPool.js';

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

/** How many deliveries one publisher has in one state, and when the oldest was written. */
export interface DeliveryStateCount {
  publisher: string;
  state: 'pending' | 'published' | 'dead';
  count: number;
  oldestAt: string;
}

export interface BacklogQuery {
  /** Only deliveries of events about this owner's jobs. */
  ownerId?: string | undefined;
}

interface CountRow {
  publisher: string;
  kind: string | null;
  state: DeliveryStateCount['state'] | null;
  count: number;
  oldest_at: Date | null;
  oldest_age: number | null;
}

// One query for both views. The full join keeps registered publishers without deliveries
// (the operator's backlog lists every publisher) and deliveries of a publisher no longer
// registered (an owner still sees where their events went).
const COUNTS_SQL = `
SELECT coalesce(p.name, d.publisher) AS publisher, p.kind, d.state, count(d.event_id)::int AS count,
       min(d.created_at) AS oldest_at, extract(epoch FROM now() - min(d.created_at))::float8 AS oldest_age
FROM onejob.outbox_publishers p
FULL JOIN (
  SELECT publisher, state, event_id, created_at FROM onejob.outbox_deliveries
  WHERE ($1::text[] IS NULL OR state = ANY ($1::text[]))
    AND ($2::text IS NULL OR subject IN (SELECT id::text FROM onejob.jobs WHERE owner_id = $2))
) d ON d.publisher = p.name
GROUP BY coalesce(p.name, d.publisher), p.kind, d.state
ORDER BY coalesce(p.name, d.publisher), d.state`;

function countDeliveries(db: Queryable, states: readonly string[] | null, ownerId: string | undefined) {
  return db.query<CountRow>(COUNTS_SQL, [states, ownerId ?? null]).then((r) => r.rows);
}

/** Pending and dead deliveries per registered publisher, optionally of one owner's jobs. */
export async function outboxBacklog(db: Queryable, query: BacklogQuery = {}): Promise<PublisherBacklog[]> {
  const byPublisher = new Map<string, PublisherBacklog>();
  for (const r of await countDeliveries(db, ['pending', 'dead'], query.ownerId)) {
    if (r.kind === null) continue;
    let entry = byPublisher.get(r.publisher);
    if (!entry) {
      entry = { publisher: r.publisher, kind: r.kind, pending: 0, dead: 0, oldestAgeSeconds: 0 };
      byPublisher.set(r.publisher, entry);
    }
    if (r.state === 'pending') {
      entry.pending = r.count;
      entry.oldestAgeSeconds = Math.max(0, r.oldest_age ?? 0);
    } else if (r.state === 'dead') entry.dead = r.count;
  }
  return [...byPublisher.values()];
}

/** Deliveries per publisher and state (published ones included), optionally of one owner's jobs. */
export async function outboxDeliveryStates(
  db: Queryable,
  query: BacklogQuery = {},
): Promise<DeliveryStateCount[]> {
  const rows = await countDeliveries(db, null, query.ownerId);
  return rows.flatMap((r) =>
    r.state === null || r.oldest_at === null
      ? []
      : [{ publisher: r.publisher, state: r.state, count: r.count, oldestAt: r.oldest_at.toISOString() }],
  );
}
