import { createHash } from 'node:crypto';
import { withTransaction } from '../db/withTransaction.js';
import type { InboxDeps } from '../engine/engineDeps.js';
import {
  checkCreateRequest,
  createPrepared,
  type PreparedCreate,
  prepareChecked,
} from '../jobs/createJob.js';
import { engineJobRequest } from '../jobs/idempotencyKey.js';
import { endJobSpan, startJobSpan } from '../jobs/jobSpan.js';
import type { JobView } from '../jobs/jobView.js';
import { type TraceSpan, tracing } from '../observability/tracing/tracing.js';
import type { InboxSource } from './inboxSources.js';

export interface VerifiedDelivery {
  source: InboxSource;
  eventId: string;
  /** The parsed body: the job's input. */
  input: Record<string, unknown>;
  rawBody: Buffer;
  traceparent?: string | null;
}

/** The answer to one webhook delivery: the status and body to send back. */
export interface DeliveryAnswer {
  status: number;
  /** The stored response, identical for every delivery of the event. */
  body: { jobId: string } & Record<string, unknown>;
  /** True for every delivery after the first: nothing new was created. */
  replayed: boolean;
  /** How many deliveries of this event have arrived, this one included. */
  deliveries: number;
}

// The primary key (source, event_id, owner_id) decides who is first: the source's owner is
// part of the key, so the event lives on the owner's shard (docs/scaling.md). A concurrent
// delivery of the same event waits here on the first one's uncommitted row and, once that
// commits, finds it: DO NOTHING returns no row.
const CLAIM_SQL = `
INSERT INTO onejob.inbox_events (source, event_id, owner_id, payload_digest)
VALUES ($1, $2, $3, $4)
ON CONFLICT (source, event_id, owner_id) DO NOTHING
RETURNING 1`;

const STORE_RESPONSE_SQL = `
UPDATE onejob.inbox_events SET job_id = $4, response_status = $5, response_body = $6::jsonb
WHERE source = $1 AND event_id = $2 AND owner_id = $3
RETURNING response_status, response_body, deliveries`;

const REDELIVERY_SQL = `
UPDATE onejob.inbox_events
SET deliveries = deliveries + 1,
    last_received_at = now(),
    differing_payloads = differing_payloads + (payload_digest <> $4)::int
WHERE source = $1 AND event_id = $2 AND owner_id = $3
RETURNING response_status, response_body, deliveries`;

export interface StoredRow {
  response_status: number;
  response_body: DeliveryAnswer['body'];
  deliveries: number;
}

/**
 * The idempotency key of the job an event creates: derived from the source and the event id only.
 *
 * @example
 * ```ts
 * inboxJobKey('shop', 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W'); // 'inbox:shop:msg_2KWPBgLlAfxdpx2AI54pPJ85f4W'
 * ```
 */
export function inboxJobKey(source: string, eventId: string): string {
  const key = `inbox:${source}:${eventId}`;
  if (key.length <= 255) return key;
  return `inbox:${source.slice(0, 160)}:sha256:${createHash('sha256').update(eventId).digest('hex')}`;
}

/** A delivery checked and ready to write: its job request prepared, its job span open. */
export interface PreparedDelivery {
  source: InboxSource;
  eventId: string;
  /** SHA-256 of the raw body, kept for audit. */
  digest: string;
  create: PreparedCreate;
  /** The job's creation span; ended when the job is created, dropped on a redelivery. */
  jobSpan: TraceSpan;
}

/** Writes prepared deliveries together (createDeliveryBatcher.ts). */
export interface DeliveryBatcher {
  accept(prepared: PreparedDelivery): Promise<DeliveryAnswer>;
}

/**
 * Records the event and creates its job in one transaction, storing the response; any
 * later delivery of the same event id gets that stored response back and creates nothing.
 * With a `batcher`, the transaction is shared with the deliveries arriving meanwhile.
 *
 * @example
 * ```ts
 * // Usually reached through onejob.inbox.receive or receiveWebhook, which verify first.
 * const answer = await acceptDelivery(onejob, verifiedDelivery);
 * ```
 */
export async function acceptDelivery(
  onejob: InboxDeps,
  delivery: VerifiedDelivery,
  batcher?: DeliveryBatcher,
): Promise<DeliveryAnswer> {
  const span = tracing().start('onejob.inbox.accept', {
    parent: delivery.traceparent,
    attributes: { 'onejob.inbox.source': delivery.source.name, 'onejob.inbox.event_id': delivery.eventId },
  });
  let prepared: PreparedDelivery | undefined;
  try {
    prepared = prepareDelivery(onejob, delivery, span.traceparent ?? delivery.traceparent ?? null);
    const answer = await (batcher ? batcher.accept(prepared) : acceptPrepared(onejob, prepared));
    span.set({ 'onejob.job.id': answer.body.jobId, 'onejob.inbox.replayed': answer.replayed });
    return answer;
  } catch (error) {
    // Nothing was committed: the job's creation span ends failed with the delivery's.
    if (prepared) endJobSpan(prepared.jobSpan, undefined, error);
    span.fail(error instanceof Error ? error.message : String(error));
    throw error;
  } finally {
    span.end();
  }
}

/** Checks the delivery's job request (a 422 writes nothing) and prepares its rows. */
export function prepareDelivery(
  onejob: Pick<InboxDeps, 'operations'>,
  delivery: VerifiedDelivery,
  traceparent: string | null,
): PreparedDelivery {
  const { source, eventId } = delivery;
  // The one caller allowed the reserved inbox: key prefix.
  const jobRequest = engineJobRequest({
    ownerId: source.ownerId,
    idempotencyKey: inboxJobKey(source.name, eventId),
    operation: source.operation,
    input: delivery.input,
    traceparent,
  });
  // Refuse bad input before anything is opened or claimed, so a refusal writes nothing.
  checkCreateRequest(onejob.operations, jobRequest);
  // The job row stores its creation span's traceparent, so its attempts are children of it.
  const jobSpan = startJobSpan(jobRequest);
  const create = prepareChecked({ ...jobRequest, traceparent: jobSpan.traceparent ?? traceparent });
  const digest = createHash('sha256').update(delivery.rawBody).digest('hex');
  return { source, eventId, digest, create, jobSpan };
}

/** After the event's job was created: its span ends and the metrics count it. */
export function jobCreated(onejob: Pick<InboxDeps, 'metrics'>, p: PreparedDelivery, job: JobView): void {
  endJobSpan(p.jobSpan, { job, replayed: false });
  onejob.metrics.jobsCreated.inc({ operation: p.create.req.operation });
}

/** One prepared delivery in a transaction of its own. */
export async function acceptPrepared(onejob: InboxDeps, p: PreparedDelivery): Promise<DeliveryAnswer> {
  const { source, eventId, digest } = p;
  let created: JobView | undefined;
  const answer = await withTransaction(onejob.pool, async (tx): Promise<DeliveryAnswer> => {
    const claimed = await tx.query(CLAIM_SQL, [source.name, eventId, source.ownerId, digest]);
    if (claimed.rowCount === 0) {
      const { rows } = await tx.query<StoredRow>(REDELIVERY_SQL, [
        source.name,
        eventId,
        source.ownerId,
        digest,
      ]);
      const row = rows[0];
      if (!row)
        throw new Error(
          `inbox event ${source.name}/${eventId} conflicted but cannot be read; retry the delivery`,
        );
      return {
        status: row.response_status,
        body: row.response_body,
        replayed: true,
        deliveries: row.deliveries,
      };
    }
    const { job, replayed } = await createPrepared(tx, p.create);
    const { rows } = await tx.query<StoredRow>(STORE_RESPONSE_SQL, [
      source.name,
      eventId,
      source.ownerId,
      job.id,
      202,
      { jobId: job.id },
    ]);
    const row = rows[0] as StoredRow;
    if (!replayed) created = job;
    return {
      status: row.response_status,
      body: row.response_body,
      replayed: false,
      deliveries: row.deliveries,
    };
  });
  if (created) jobCreated(onejob, p, created);
  return answer;
}
