import { createHash } from 'node:crypto';
import type { InboxDeps } from '../engine/engineDeps.js';
import { engineJobRequest } from '../jobs/idempotencyKey.js';
import { endJobSpan, startJobSpan } from '../jobs/jobSpan.js';
import type { JobView } from '../jobs/jobView.js';
import { checkCreateRequest, type PreparedCreate, prepareChecked } from '../jobs/prepareCreate.js';
import type { TraceSpan } from '../observability/tracing/tracing.js';
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
