import { createGroupCommit, type GroupCommitOptions, groupByKey, type Pending } from '../db/groupCommit.js';
import type { InboxDeps } from '../engine/engineDeps.js';
import { acceptDeliveriesBatch } from './acceptDeliveriesBatch.js';
import {
  acceptPrepared,
  type DeliveryAnswer,
  type DeliveryBatcher,
  jobCreated,
  type PreparedDelivery,
} from './acceptDelivery.js';

export interface DeliveryBatcherOptions extends GroupCommitOptions {
  /** Called once per batch, with its size and whether it fell back to one delivery at a time. */
  onBatch?: (batch: { size: number; fellBack: boolean; error?: unknown }) => void;
}

type Waiter = Pending<PreparedDelivery, DeliveryAnswer>;

/**
 * Group commit for webhook deliveries (src/db/groupCommit.ts): deliveries arriving
 * together are claimed, get their jobs and store their responses in one transaction.
 * Each keeps the answer it would have had alone. The same event twice in a batch is
 * written once; its other deliveries then go alone, after the batch committed, and are
 * counted and answered as redeliveries. A batch that fails sends every delivery alone.
 */
export function createDeliveryBatcher(
  onejob: InboxDeps,
  options: DeliveryBatcherOptions = {},
): DeliveryBatcher {
  if ((options.maxBatchSize ?? 64) <= 1) return { accept: (p) => acceptPrepared(onejob, p) };

  const alone = async (waiters: Waiter[]): Promise<void> => {
    for (const w of waiters) {
      try {
        w.resolve(await acceptPrepared(onejob, w.item));
      } catch (error) {
        w.reject(error);
      }
    }
  };

  const runBatch = async (waiters: Waiter[]): Promise<void> => {
    const groups = groupByKey(waiters, (w) => `${w.item.source.name}\u0000${w.item.eventId}`);
    const leaders = groups.map((g) => g[0]!);
    const repeats = groups.flatMap((g) => g.slice(1));
    let outcome: Awaited<ReturnType<typeof acceptDeliveriesBatch>>;
    try {
      outcome = await acceptDeliveriesBatch(
        onejob.pool,
        leaders.map((w) => w.item),
      );
    } catch (error) {
      options.onBatch?.({ size: waiters.length, fellBack: true, error });
      await Promise.all(leaders.map((w) => alone([w])));
      await alone(repeats);
      return;
    }
    options.onBatch?.({ size: waiters.length, fellBack: false });
    leaders.forEach((w, i) => {
      const { answer, created } = outcome[i]!;
      if (created) jobCreated(onejob, w.item, created);
      w.resolve(answer);
    });
    await alone(repeats);
  };

  const queue = createGroupCommit<PreparedDelivery, DeliveryAnswer>(runBatch, options);
  return { accept: (prepared) => queue.submit(prepared) };
}
