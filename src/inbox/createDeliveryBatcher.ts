import { type BatcherOptions, createBatcher } from '../db/createBatcher.js';
import type { InboxDeps } from '../engine/engineDeps.js';
import { acceptDeliveriesBatch, type DeliveriesOutcome } from './acceptDeliveriesBatch.js';
import { acceptPrepared, type DeliveryBatcher } from './acceptDelivery.js';
import { type DeliveryAnswer, jobCreated, type PreparedDelivery } from './prepareDelivery.js';

export type DeliveryBatcherOptions = BatcherOptions;

/**
 * Group commit for webhook deliveries (src/db/createBatcher.ts): deliveries arriving
 * together are claimed, get their jobs and store their responses in one transaction.
 * Each keeps the answer it would have had alone. The same event twice in a batch is
 * written once; its other deliveries then go alone, after the batch committed, and are
 * counted and answered as redeliveries. A batch that fails sends every delivery alone.
 */
export function createDeliveryBatcher(
  onejob: InboxDeps,
  options: DeliveryBatcherOptions = {},
): DeliveryBatcher {
  const batcher = createBatcher<PreparedDelivery, DeliveriesOutcome[number], DeliveryAnswer>(
    {
      key: (p) => `${p.source.name}\u0000${p.eventId}`,
      write: (batch) => acceptDeliveriesBatch(onejob.pool, batch),
      answer({ answer, created }, p) {
        if (created) jobCreated(onejob, p, created);
        return answer;
      },
      alone: (p) => acceptPrepared(onejob, p),
      repeatsAlone: true,
    },
    options,
  );
  return { accept: (prepared) => batcher.submit(prepared) };
}
