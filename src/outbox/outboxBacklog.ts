import type { DeliveryStateCount, PublisherBacklog } from '../contract/index.js';
import type { Queryable } from '../db/createPool.js';

/**
 * One publisher's backlog: deliveries still to make and the age of the oldest; how many
 * deliveries one publisher has in one state, and when the oldest was written (the wire
 * contract's shapes).
 */
export type { DeliveryStateCount, PublisherBacklog };

/** Filter of `outboxBacklog`. */
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
// registered (an owner still sees where their events went). An owner's deliveries are
// found from their jobs (jobs by owner, events by subject, deliveries by event id), all on
// indexes; a filter written as "owner is null or ..." would scan every delivery instead.
const countsSql = (byOwner: boolean) => `
SELECT coalesce(p.name, d.publisher) AS publisher, p.kind, d.state, count(d.event_id)::int AS count,
       min(d.created_at) AS oldest_at, extract(epoch FROM now() - min(d.created_at))::float8 AS oldest_age
FROM onejob.outbox_publishers p
FULL JOIN (
  SELECT publisher, state, event_id, created_at FROM onejob.outbox_deliveries
  WHERE ($1::text[] IS NULL OR state = ANY ($1::text[]))${
    byOwner
      ? `
    AND event_id IN (SELECT o.id FROM onejob.jobs j JOIN onejob.outbox o ON o.subject = j.id::text WHERE j.owner_id = $2)`
      : ''
  }
) d ON d.publisher = p.name
GROUP BY coalesce(p.name, d.publisher), p.kind, d.state
ORDER BY coalesce(p.name, d.publisher), d.state`;
const COUNTS_SQL = countsSql(false);
const OWNER_COUNTS_SQL = countsSql(true);

function countDeliveries(db: Queryable, states: readonly string[] | null, ownerId: string | undefined) {
  const query =
    ownerId === undefined
      ? db.query<CountRow>(COUNTS_SQL, [states])
      : db.query<CountRow>(OWNER_COUNTS_SQL, [states, ownerId]);
  return query.then((r) => r.rows);
}

/**
 * Pending and dead deliveries per registered publisher, optionally of one owner's jobs.
 *
 * @example
 * ```ts
 * for (const b of await outboxBacklog(pool)) console.log(b.publisher, b.pending);
 * ```
 */
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

/**
 * Deliveries per publisher and state (published ones included), optionally of one owner's jobs.
 *
 * @example
 * ```ts
 * const states = await outboxDeliveryStates(pool, { ownerId: 'acme' });
 * const dead = states.filter((s) => s.state === 'dead');
 * ```
 */
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
