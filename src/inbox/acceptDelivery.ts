import type { InboxDeps } from '../engine/engineDeps.js';
import { afterDelivery, applyAfterWrite } from '../events/afterWrite.js';
import { endJobSpan } from '../jobs/jobSpan.js';
import { tracing } from '../observability/tracing/tracing.js';
import { acceptDeliveriesBatch } from './acceptDeliveriesBatch.js';
import {
  type DeliveryAnswer,
  jobCreated,
  type PreparedDelivery,
  prepareDelivery,
  type VerifiedDelivery,
} from './prepareDelivery.js';

export {
  type DeliveryAnswer,
  inboxJobKey,
  type PreparedDelivery,
  prepareDelivery,
  type VerifiedDelivery,
} from './prepareDelivery.js';

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
    // Committed: the first delivery's job and its created event wake the relays now.
    applyAfterWrite(onejob, afterDelivery(answer));
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

/** One prepared delivery in a transaction of its own: the inbox's batch, of one. */
export async function acceptPrepared(onejob: InboxDeps, p: PreparedDelivery): Promise<DeliveryAnswer> {
  const [outcome] = await acceptDeliveriesBatch(onejob.pool, [p]);
  if (!outcome)
    throw new Error(`inbox event ${p.source.name}/${p.eventId} got no answer; retry the delivery`);
  if (outcome.created) jobCreated(onejob, p, outcome.created);
  return outcome.answer;
}
