import type pg from 'pg';
import { withTransaction } from '../db/withTransaction.js';
import { failpoint } from '../failpoints/failpoints.js';
import { type ClaimedDelivery, claimOutboxBatch } from './claimOutboxBatch.js';
import { markPublished, markRefused, markUnavailable, type RefusedDelivery } from './markPublished.js';
import { type RetryPolicy, retryDelayMs } from './outboxSettings.js';
import { isPublishError, type Publisher } from './publisher.js';
import { endPublishSpan, startPublishSpan } from './publishSpan.js';

export interface RelayBatchResult {
  claimed: number;
  published: number;
  /** Event ids the broker recognised as already stored (JetStream duplicate window). */
  duplicates: string[];
  refused: number;
  /** Deliveries that reached maxDeliveries in this batch. */
  dead: { eventId: string; attempts: number }[];
  /** Set when the broker could not be reached; the relay backs off this publisher. */
  unavailable: Error | undefined;
}

/**
 * One pass for one publisher: claim a batch, publish it, record the outcome, commit.
 * The claim, the publishing and the marking share one transaction, so if the relay dies
 * at any point the row locks go with its connection and the rows are still pending:
 * the event is published again (same id) by whichever relay claims it next.
 */
export async function relayBatch(
  pool: pg.Pool,
  publisher: Publisher,
  policy: RetryPolicy,
  batchSize: number,
): Promise<RelayBatchResult> {
  const result: RelayBatchResult = {
    claimed: 0,
    published: 0,
    duplicates: [],
    refused: 0,
    dead: [],
    unavailable: undefined,
  };
  // A relay that dies at any point takes its row locks with its connection; a failed
  // pass rolls back and discards its client.
  return withTransaction(pool, async (client) => {
    const runs = await claimOutboxBatch(client, publisher.name, batchSize);
    result.claimed = runs.reduce((n, run) => n + run.length, 0);
    if (result.claimed === 0) return result;
    await failpoint('relay.before_publish');

    const published: string[] = [];
    const refused: RefusedDelivery[] = [];
    const untried: string[] = [];
    // One subject's events go one after another, and a failure stops the rest of that
    // subject: a later event never overtakes an earlier one. Subjects run side by side.
    await forEachLimit(runs, publisher.concurrency, async (run: ClaimedDelivery[]) => {
      for (const [i, delivery] of run.entries()) {
        if (result.unavailable) {
          untried.push(...run.slice(i).map((d) => d.id));
          return;
        }
        const span = startPublishSpan(publisher.name, delivery);
        try {
          const receipt = await publisher.publish(delivery);
          endPublishSpan(span, receipt.duplicate);
          published.push(delivery.id);
          if (receipt.duplicate) result.duplicates.push(delivery.id);
        } catch (error) {
          endPublishSpan(span, undefined, error);
          if (isPublishError(error) && error.unavailable) {
            result.unavailable ??= error;
            untried.push(...run.slice(i).map((d) => d.id));
          } else {
            const message = error instanceof Error ? error.message : String(error);
            refused.push({
              eventId: delivery.id,
              error: message,
              delayMs: retryDelayMs(policy, delivery.attempts + 1),
            });
          }
          return;
        }
      }
    });
    await failpoint('relay.after_publish');

    result.published = await markPublished(client, publisher.name, published);
    result.refused = refused.length;
    result.dead = await markRefused(client, publisher.name, refused, policy.maxDeliveries);
    if (result.unavailable)
      await markUnavailable(client, publisher.name, untried, result.unavailable.message);
    return result;
  });
}

async function forEachLimit<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await fn(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
