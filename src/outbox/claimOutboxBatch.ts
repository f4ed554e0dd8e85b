import type pg from 'pg';
import type { CloudEvent } from '../events/cloudEvent.js';
import { cloudEventOfRow } from '../events/cloudEventOfRow.js';
import type { OutboxEvent } from './publisher.js';

/** A claimed delivery: the event and how often this publisher has failed it so far. */
export interface ClaimedDelivery extends OutboxEvent {
  attempts: number;
}

// The retry pass: delivery rows exist only for events the log pass could not publish (a
// refused try, an event held behind one, a dead letter sent back, a row from before
// migration 0021); everything else is behind the publisher's position
// (claimFromPosition.ts). Heads: the earliest pending delivery of each subject that is
// due. An earlier pending delivery of the same subject (even one another relay holds)
// keeps a row out, which is what keeps one job's events in order. SKIP LOCKED lets several
// relays split the work. The head test is a scalar subquery, always one index probe per row: written as NOT
// EXISTS, a backlog inserted faster than autovacuum analyses the table was planned as an
// unparameterised anti-join, quadratic in the backlog (27 s per batch at 10,000 rows).
const HEADS_SQL = `
SELECT d.subject FROM onejob.outbox_retries d
WHERE d.publisher = $1 AND d.state = 'pending' AND d.next_attempt_at <= now()
  AND d.seq = (
    SELECT min(e.seq) FROM onejob.outbox_retries e
    WHERE e.publisher = d.publisher AND e.subject = d.subject AND e.state = 'pending')
ORDER BY d.seq
LIMIT $2
FOR UPDATE OF d SKIP LOCKED`;

// With the heads held, the pending rows that follow them in their subjects can go in the
// same batch. A global seq order with a LIMIT keeps each subject's rows a prefix. The
// event comes as text: publishers send the stored JSON as it is, without a parse and a
// serialisation per event in the relay.
const RUNS_SQL = `
SELECT d.event_id AS id, d.seq::text AS seq, d.subject, d.attempts, d.next_attempt_at <= now() AS due,
       e.publish AS type, ${cloudEventOfRow('e')}::text AS json
FROM onejob.outbox_retries d JOIN onejob.job_events e ON e.id = d.event_id AND e.owner_id = d.owner_id
WHERE d.publisher = $1 AND d.subject = ANY($2::text[]) AND d.state = 'pending'
ORDER BY d.seq
LIMIT $3
FOR UPDATE OF d`;

interface RunRow {
  id: string;
  seq: string;
  subject: string;
  attempts: number;
  due: boolean;
  type: string;
  json: string;
}

/**
 * Claims up to `limit` deliveries of `publisher` inside the caller's transaction, grouped
 * by subject in publish order. The row locks last until the transaction ends, so the
 * claim dies with the relay's connection if the relay dies.
 */
export async function claimOutboxBatch(
  tx: pg.PoolClient,
  publisher: string,
  limit: number,
): Promise<ClaimedDelivery[][]> {
  const { rows: heads } = await tx.query<{ subject: string }>(HEADS_SQL, [publisher, limit]);
  if (heads.length === 0) return [];
  const { rows } = await tx.query<RunRow>(RUNS_SQL, [publisher, heads.map((h) => h.subject), limit]);
  const bySubject = new Map<string, ClaimedDelivery[]>();
  const stopped = new Set<string>();
  for (const row of rows) {
    if (stopped.has(row.subject)) continue;
    // A row waiting for its retry time holds back the rest of its subject.
    if (!row.due) {
      stopped.add(row.subject);
      continue;
    }
    const run = bySubject.get(row.subject) ?? [];
    run.push(claimedDelivery(row));
    bySubject.set(row.subject, run);
  }
  return [...bySubject.values()];
}

/** A delivery as publishers take it, its CloudEvent parsed on first read. */
export function claimedDelivery(
  row: Pick<RunRow, 'id' | 'seq' | 'subject' | 'type' | 'attempts' | 'json'>,
): ClaimedDelivery {
  let event: CloudEvent | undefined;
  return {
    id: row.id,
    seq: row.seq,
    subject: row.subject,
    type: row.type,
    attempts: row.attempts,
    json: row.json,
    // Parsed only for a publisher that reads it.
    get event(): CloudEvent {
      event ??= JSON.parse(row.json) as CloudEvent;
      return event;
    },
  };
}
