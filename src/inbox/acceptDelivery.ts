import { createHash } from 'node:crypto';
import { withTransaction } from '../db/withTransaction.js';
import type { InboxDeps } from '../engine/engineDeps.js';
import { checkCreateRequest } from '../jobs/createJob.js';
import { engineJobRequest } from '../jobs/idempotencyKey.js';
import { tracing } from '../observability/tracing/tracing.js';
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

// The primary key (source, event_id) decides who is first. A concurrent delivery of the
// same event waits here on the first one's uncommitted row and, once that commits, finds
// it: DO NOTHING returns no row.
const CLAIM_SQL = `
INSERT INTO onejob.inbox_events (source, event_id, owner_id, payload_digest)
VALUES ($1, $2, $3, $4)
ON CONFLICT (source, event_id) DO NOTHING
RETURNING 1`;

const STORE_RESPONSE_SQL = `
UPDATE onejob.inbox_events SET job_id = $3, response_status = $4, response_body = $5::jsonb
WHERE source = $1 AND event_id = $2
RETURNING response_status, response_body, deliveries`;

const REDELIVERY_SQL = `
UPDATE onejob.inbox_events
SET deliveries = deliveries + 1,
    last_received_at = now(),
    differing_payloads = differing_payloads + (payload_digest <> $3)::int
WHERE source = $1 AND event_id = $2
RETURNING response_status, response_body, deliveries`;

interface StoredRow {
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

/**
 * Records the event and creates its job in one transaction, storing the response; any
 * later delivery of the same event id gets that stored response back and creates nothing.
 *
 * @example
 * ```ts
 * // Usually reached through onejob.inbox.receive or receiveWebhook, which verify first.
 * const answer = await acceptDelivery(onejob, verifiedDelivery);
 * ```
 */
export async function acceptDelivery(onejob: InboxDeps, delivery: VerifiedDelivery): Promise<DeliveryAnswer> {
  const span = tracing().start('onejob.inbox.accept', {
    parent: delivery.traceparent,
    attributes: { 'onejob.inbox.source': delivery.source.name, 'onejob.inbox.event_id': delivery.eventId },
  });
  try {
    const answer = await accept(onejob, delivery, span.traceparent ?? delivery.traceparent ?? null);
    span.set({ 'onejob.job.id': answer.body.jobId, 'onejob.inbox.replayed': answer.replayed });
    return answer;
  } catch (error) {
    span.fail(error instanceof Error ? error.message : String(error));
    throw error;
  } finally {
    span.end();
  }
}

async function accept(
  onejob: InboxDeps,
  delivery: VerifiedDelivery,
  traceparent: string | null,
): Promise<DeliveryAnswer> {
  const { source, eventId } = delivery;
  // The one caller allowed the reserved inbox: key prefix.
  const jobRequest = engineJobRequest({
    ownerId: source.ownerId,
    idempotencyKey: inboxJobKey(source.name, eventId),
    operation: source.operation,
    input: delivery.input,
    traceparent,
  });
  // Refuse bad input before claiming the event, so a refusal writes nothing.
  checkCreateRequest(onejob.operations, jobRequest);
  const digest = createHash('sha256').update(delivery.rawBody).digest('hex');

  return withTransaction(onejob.pool, async (tx) => {
    const claimed = await tx.query(CLAIM_SQL, [source.name, eventId, source.ownerId, digest]);
    if (claimed.rowCount === 0) {
      const { rows } = await tx.query<StoredRow>(REDELIVERY_SQL, [source.name, eventId, digest]);
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
    const { job } = await onejob.jobs.create(jobRequest, { tx });
    const response = { jobId: job.id };
    const { rows } = await tx.query<StoredRow>(STORE_RESPONSE_SQL, [
      source.name,
      eventId,
      job.id,
      202,
      response,
    ]);
    const row = rows[0] as StoredRow;
    return {
      status: row.response_status,
      body: row.response_body,
      replayed: false,
      deliveries: row.deliveries,
    };
  });
}
