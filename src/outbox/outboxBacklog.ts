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
  /** Only this owner's events (`outboxDeliveryStates`: events about this owner's live jobs). */
  ownerId?: string | undefined;
}

interface BacklogRow {
  publisher: string;
  kind: string;
  pending: number;
  dead: number;
  oldest_age: number | null;
}

// Per registered publisher: the public events ahead of its position (found by xid: those
// of transactions in progress at its snapshot and after it, docs/outbox.md) and its pending and dead retry rows. An event's
// retry row, where it has one, decides its state for that publisher.
const BACKLOG_SQL = `
SELECT p.name AS publisher, p.kind, a.pending + r.pending AS pending, r.dead,
       extract(epoch FROM now() - least(a.oldest, r.oldest))::float8 AS oldest_age
FROM onejob.outbox_publishers p
CROSS JOIN LATERAL (
  SELECT count(*)::int AS pending, min(e.created_at) AS oldest FROM (
    SELECT * FROM onejob.job_events WHERE publish IS NOT NULL AND xid >= pg_snapshot_xmax(p.done)
    UNION ALL
    SELECT * FROM onejob.job_events WHERE publish IS NOT NULL AND xid = ANY (ARRAY(SELECT pg_snapshot_xip(p.done)))
  ) e
  WHERE NOT onejob.event_behind(e.xid, e.seq, p.done, p.window_end, p.window_seq)
    AND ($1::text IS NULL OR e.owner_id = $1)
    AND (SELECT x.state FROM onejob.outbox_retries x
         WHERE x.event_id = e.id AND x.publisher = p.name AND x.owner_id = e.owner_id) IS NULL
) a
CROSS JOIN LATERAL (
  SELECT count(*) FILTER (WHERE d.state = 'pending')::int AS pending, count(*) FILTER (WHERE d.state = 'dead')::int AS dead,
         min(d.created_at) FILTER (WHERE d.state = 'pending') AS oldest
  FROM onejob.outbox_retries d
  WHERE d.publisher = p.name AND d.state IN ('pending', 'dead') AND ($1::text IS NULL OR d.owner_id = $1)
) r
ORDER BY p.name`;

interface StateRow {
  publisher: string;
  state: DeliveryStateCount['state'];
  count: number;
  oldest_at: Date;
}

// Every public event, for every registered publisher, in its delivery row's state or else
// published when the position is past it and pending when not. An owner's events are
// found from their jobs (jobs by owner, events by job), on indexes.
const statesSql = (byOwner: boolean) => `
SELECT p.name AS publisher,
       coalesce(d.state, CASE WHEN onejob.event_behind(e.xid, e.seq, p.done, p.window_end, p.window_seq)
                              THEN 'published' ELSE 'pending' END) AS state,
       count(*)::int AS count, min(e.created_at) AS oldest_at
FROM onejob.job_events e
CROSS JOIN onejob.outbox_publishers p
LEFT JOIN onejob.outbox_retries d ON d.event_id = e.id AND d.owner_id = e.owner_id AND d.publisher = p.name
WHERE e.publish IS NOT NULL${byOwner ? ' AND e.job_id IN (SELECT j.id FROM onejob.jobs j WHERE j.owner_id = $1)' : ''}
GROUP BY 1, 2
ORDER BY 1, 2`;
const STATES_SQL = statesSql(false);
const OWNER_STATES_SQL = statesSql(true);

/**
 * Pending and dead deliveries per registered publisher, optionally of one owner's jobs.
 *
 * @example
 * ```ts
 * for (const b of await outboxBacklog(pool)) console.log(b.publisher, b.pending);
 * ```
 */
export async function outboxBacklog(db: Queryable, query: BacklogQuery = {}): Promise<PublisherBacklog[]> {
  const { rows } = await db.query<BacklogRow>(BACKLOG_SQL, [query.ownerId ?? null]);
  return rows.map((r) => ({
    publisher: r.publisher,
    kind: r.kind,
    pending: r.pending,
    dead: r.dead,
    oldestAgeSeconds: r.pending > 0 ? Math.max(0, r.oldest_age ?? 0) : 0,
  }));
}

/**
 * Events per publisher and delivery state (published ones included), optionally of one owner's jobs.
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
  const { rows } =
    query.ownerId === undefined
      ? await db.query<StateRow>(STATES_SQL)
      : await db.query<StateRow>(OWNER_STATES_SQL, [query.ownerId]);
  return rows.map((r) => ({
    publisher: r.publisher,
    state: r.state,
    count: r.count,
    oldestAt: r.oldest_at.toISOString(),
  }));
}
