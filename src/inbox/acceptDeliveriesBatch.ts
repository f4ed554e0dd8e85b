import type { Queryable } from '../db/createPool.js';
import { withTransaction } from '../db/withTransaction.js';
import { OnejobError } from '../errors/OnejobError.js';
import { failpoint } from '../failpoints/failpoints.js';
import { settleCreate } from '../jobs/createJob.js';
import { createJobsBatch } from '../jobs/createJobsBatch.js';
import type { JobView } from '../jobs/jobView.js';
import type { DeliveryAnswer, PreparedDelivery } from './prepareDelivery.js';

// The inbox's one write, for a set of deliveries with distinct (source, event id) (a single
// one when a delivery goes alone, acceptDelivery.ts), in one transaction: claim every event
// (in key order, so two batches sharing events wait on each other's index entries in one
// order), create the jobs of the claimed ones in one statement, store their responses, and
// count the others as redeliveries. The primary key (source, event_id, owner_id) decides
// which delivery is first: the source's owner is part of it, so the event lives on the
// owner's shard (docs/scaling.md). A concurrent delivery of the same event waits on the
// first one's uncommitted row and, once that commits, finds it: DO NOTHING returns no row.
const CLAIM_BATCH_SQL = `
INSERT INTO onejob.inbox_events (source, event_id, owner_id, payload_digest)
SELECT r.source, r.event_id, r.owner_id, r.payload_digest
FROM json_to_recordset($1::json) AS r(source text, event_id text, owner_id text, payload_digest text)
ORDER BY r.source, r.event_id, r.owner_id
ON CONFLICT (source, event_id, owner_id) DO NOTHING
RETURNING source, event_id`;

const STORE_BATCH_SQL = `
UPDATE onejob.inbox_events e
SET job_id = r.job_id, response_status = 202, response_body = jsonb_build_object('jobId', r.job_id)
FROM json_to_recordset($1::json) AS r(source text, event_id text, owner_id text, job_id uuid)
WHERE e.source = r.source AND e.event_id = r.event_id AND e.owner_id = r.owner_id
RETURNING e.source, e.event_id, e.response_status, e.response_body, e.deliveries`;

const REDELIVERY_BATCH_SQL = `
UPDATE onejob.inbox_events e
SET deliveries = e.deliveries + 1,
    last_received_at = now(),
    differing_payloads = e.differing_payloads + (e.payload_digest <> r.payload_digest)::int
FROM json_to_recordset($1::json) AS r(source text, event_id text, owner_id text, payload_digest text)
WHERE e.source = r.source AND e.event_id = r.event_id AND e.owner_id = r.owner_id
RETURNING e.source, e.event_id, e.response_status, e.response_body, e.deliveries`;

interface StoredRow {
  response_status: number;
  response_body: DeliveryAnswer['body'];
  deliveries: number;
}

type KeyedRow = StoredRow & { source: string; event_id: string };

/** Each delivery's answer, in input order, and the job it created if it was the first. */
export type DeliveriesOutcome = { answer: DeliveryAnswer; created?: JobView }[];

const keyOf = (source: string, eventId: string) => `${source}\u0000${eventId}`;

/**
 * Writes deliveries with distinct (source, event id) in one transaction and one commit, and
 * checks the answer row by row: every claimed event gets its own new job and exactly one
 * stored response, every other event exactly one redelivery row. Anything else (a job key
 * that already named a job, a missing row) throws and rolls the whole batch back; the
 * caller then sends each delivery alone.
 */
export async function acceptDeliveriesBatch(
  db: Queryable,
  batch: readonly PreparedDelivery[],
): Promise<DeliveriesOutcome> {
  const index = new Map(batch.map((p, i) => [keyOf(p.source.name, p.eventId), i]));
  const at = (source: string, eventId: string, what: string): number => {
    const i = index.get(keyOf(source, eventId));
    if (i === undefined) throw batchAnswer(`${what} a row for an event it was not given`);
    return i;
  };
  return withTransaction(db, async (tx) => {
    const claimRequests = batch.map((p) => ({
      source: p.source.name,
      event_id: p.eventId,
      owner_id: p.source.ownerId,
      payload_digest: p.digest,
    }));
    const claimedRows = (
      await tx.query<{ source: string; event_id: string }>(CLAIM_BATCH_SQL, [JSON.stringify(claimRequests)])
    ).rows;
    const claimed = new Set<number>();
    for (const r of claimedRows) {
      const i = at(r.source, r.event_id, 'claimed');
      if (claimed.has(i)) throw batchAnswer(`claimed event ${i + 1} twice`);
      claimed.add(i);
    }
    // Marks a shared batch failing between its statements; a delivery alone never stops here.
    if (batch.length > 1) await failpoint('inbox.batch');
    const firsts = [...claimed].sort((a, b) => a - b);
    const jobs = await createJobsBatch(
      tx,
      firsts.map((i) => batch[i]!.create),
    );
    const outcome: (DeliveriesOutcome[number] | undefined)[] = new Array(batch.length).fill(undefined);
    // A new event's job key is usually new. If it already names a job (or a tombstone),
    // the event answers with that job, as createJob would: a replay of the same request,
    // or its 409, which fails this transaction (a batch then sends each delivery alone).
    const jobOf = new Map<number, JobView>();
    const created = new Map<number, JobView>();
    for (const [k, i] of firsts.entries()) {
      const { job, replayed } = await settleCreate(tx, batch[i]!.create, jobs[k]);
      jobOf.set(i, job);
      if (!replayed) created.set(i, job);
    }
    const stores = firsts.map((i) => ({
      source: batch[i]!.source.name,
      event_id: batch[i]!.eventId,
      owner_id: batch[i]!.source.ownerId,
      job_id: jobOf.get(i)!.id,
    }));
    const redeliveries = batch
      .map((p, i) => ({
        source: p.source.name,
        event_id: p.eventId,
        owner_id: p.source.ownerId,
        payload_digest: p.digest,
        i,
      }))
      .filter((r) => !claimed.has(r.i))
      .map(({ i: _, ...r }) => r);
    const stored = stores.length
      ? (await tx.query<KeyedRow>(STORE_BATCH_SQL, [JSON.stringify(stores)])).rows
      : [];
    const again = redeliveries.length
      ? (await tx.query<KeyedRow>(REDELIVERY_BATCH_SQL, [JSON.stringify(redeliveries)])).rows
      : [];
    for (const [rows, replayed] of [
      [stored, false],
      [again, true],
    ] as const) {
      for (const row of rows) {
        const i = at(row.source, row.event_id, replayed ? 'redelivered' : 'stored');
        if (outcome[i]) throw batchAnswer(`answered event ${i + 1} twice`);
        if (claimed.has(i) === replayed) throw batchAnswer(`mixed up the first delivery of event ${i + 1}`);
        const answer = {
          status: row.response_status,
          body: row.response_body,
          replayed,
          deliveries: row.deliveries,
        };
        const job = created.get(i);
        outcome[i] = replayed || !job ? { answer } : { answer, created: job };
      }
    }
    if (outcome.some((o) => !o)) throw batchAnswer('left a delivery without an answer');
    return outcome as DeliveriesOutcome;
  });
}

const batchAnswer = (problem: string) =>
  new OnejobError('internal_error', `The inbox batch statement ${problem}.`);
