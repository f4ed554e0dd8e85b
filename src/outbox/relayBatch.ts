import type pg from 'pg';
import { withTransaction } from '../db/withTransaction.js';
import { failpoint } from '../failpoints/failpoints.js';
import { advancePosition, claimFromPosition } from './claimFromPosition.js';
import { type ClaimedDelivery, claimOutboxBatch } from './claimOutboxBatch.js';
import {
  markPublished,
  markRefused,
  markUnavailable,
  type RefusedDelivery,
  recordUnpublished,
  type UnpublishedEvent,
} from './markPublished.js';
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
 * One pass for one publisher: the log pass (the events ahead of the publisher's position),
 * then the retry pass (its pending delivery rows), each claim, publish, record, commit in
 * a transaction of its own. If the relay dies at any point, the position and the rows are
 * as they were before the pass: the events are published again (same id) by whichever
 * relay passes next.
 */
export async function relayBatch(
  pool: pg.Pool,
  publisher: Publisher,
  policy: RetryPolicy,
  batchSize: number,
): Promise<RelayBatchResult> {
  const fromLog = await relayFromPosition(pool, publisher, policy, batchSize);
  if (fromLog.unavailable) return fromLog;
  const retried = await relayRetries(pool, publisher, policy, batchSize);
  return {
    claimed: fromLog.claimed + retried.claimed,
    published: fromLog.published + retried.published,
    duplicates: [...fromLog.duplicates, ...retried.duplicates],
    refused: fromLog.refused + retried.refused,
    dead: [...fromLog.dead, ...retried.dead],
    unavailable: retried.unavailable,
  };
}

const emptyResult = (): RelayBatchResult => ({
  claimed: 0,
  published: 0,
  duplicates: [],
  refused: 0,
  dead: [],
  unavailable: undefined,
});

/**
 * The log pass: lock the publisher's position (one pass per publisher at a time, across
 * relays), publish the events ahead of it, and move it past every event that was published
 * or got a delivery row. An event refused, or held behind an earlier pending event of its
 * subject, gets a delivery row (markPublished.ts, recordUnpublished) for the retry pass.
 * Events not tried because the broker could not be reached stay ahead of the position.
 */
export async function relayFromPosition(
  pool: pg.Pool,
  publisher: Publisher,
  policy: RetryPolicy,
  batchSize: number,
): Promise<RelayBatchResult> {
  const result = emptyResult();
  return withTransaction(pool, async (client) => {
    const claim = await claimFromPosition(client, publisher.name, batchSize);
    if (!claim) return result;
    const { position, events } = claim;
    result.claimed = events.length;
    const owners = new Map(events.map((e) => [e.id, e.ownerId]));
    const held = events.filter((e) => e.held);
    const runs = bySubject(events.filter((e) => !e.held));
    if (runs.length > 0) await failpoint('relay.before_publish');
    const outcome = await publishRuns(publisher, policy, runs, result);
    if (runs.length > 0) await failpoint('relay.after_publish');

    // How far the position moves: past every event up to the first one not tried (the
    // broker could not be reached); what was published after it goes again next pass.
    const untried = new Set(outcome.untried);
    const firstUntried = events.find((e) => untried.has(e.id));
    const settled = firstUntried ? events.filter((e) => BigInt(e.seq) < BigInt(firstUntried.seq)) : events;
    const settledIds = new Set(settled.map((e) => e.id));
    const refusedById = new Map(outcome.refused.map((r) => [r.eventId, r]));
    const unpublished: UnpublishedEvent[] = [
      ...held.map((e) => e.id),
      ...outcome.stopped,
      ...outcome.refused.map((r) => r.eventId),
    ]
      .filter((id) => settledIds.has(id))
      .map((id) => {
        const refused = refusedById.get(id);
        return {
          eventId: id,
          ownerId: owners.get(id) as string,
          refused: refused ? { error: refused.error, delayMs: refused.delayMs } : null,
        };
      });
    result.published = outcome.published.length;
    result.refused = outcome.refused.length;
    result.dead = await recordUnpublished(client, publisher.name, unpublished, policy.maxDeliveries);
    const last = settled.at(-1);
    // Inside a window with its bound, the pass read a span of seqs (`through`): the window
    // is walked when the span reached its end, and a span read whole is behind even where
    // it held no event of the window. Otherwise a short batch is the rest of what is ahead.
    const through = position.through;
    const walked =
      !firstUntried &&
      (through !== null
        ? BigInt(through) >= BigInt(position.windowLast as string)
        : events.length < batchSize);
    const behind = firstUntried || through === null ? last?.seq : through;
    // Nothing ahead and no window: the position stays (an idle poll writes nothing).
    const moved = (walked && (events.length > 0 || position.windowOpen)) || (!walked && behind !== undefined);
    if (moved || result.unavailable) {
      await advancePosition(client, publisher.name, position, {
        moved,
        walked,
        seq: behind ?? position.windowSeq,
        lastError: result.unavailable?.message ?? null,
      });
    }
    return result;
  });
}

/**
 * The retry pass: claim the due pending delivery rows of the publisher, publish them, and
 * mark them published, refused (a dead letter at maxDeliveries) or not tried.
 */
export async function relayRetries(
  pool: pg.Pool,
  publisher: Publisher,
  policy: RetryPolicy,
  batchSize: number,
): Promise<RelayBatchResult> {
  const result = emptyResult();
  // A relay that dies at any point takes its row locks with its connection; a failed
  // pass rolls back and discards its client.
  return withTransaction(pool, async (client) => {
    const runs = await claimOutboxBatch(client, publisher.name, batchSize);
    result.claimed = runs.reduce((n, run) => n + run.length, 0);
    if (result.claimed === 0) return result;
    await failpoint('relay.before_publish');
    const outcome = await publishRuns(publisher, policy, runs, result);
    await failpoint('relay.after_publish');

    result.published = await markPublished(client, publisher.name, outcome.published);
    result.refused = outcome.refused.length;
    result.dead = await markRefused(client, publisher.name, outcome.refused, policy.maxDeliveries);
    if (result.unavailable)
      await markUnavailable(client, publisher.name, outcome.untried, result.unavailable.message);
    return result;
  });
}

function bySubject(events: ClaimedDelivery[]): ClaimedDelivery[][] {
  const runs = new Map<string, ClaimedDelivery[]>();
  for (const e of events) {
    const run = runs.get(e.subject) ?? [];
    run.push(e);
    runs.set(e.subject, run);
  }
  return [...runs.values()];
}

interface RunsOutcome {
  published: string[];
  refused: RefusedDelivery[];
  /** Events after a refused one in their subject's run: held behind it. */
  stopped: string[];
  /** Events not tried because the broker could not be reached. */
  untried: string[];
}

// One subject's events go one after another, and a failure stops the rest of that
// subject: a later event never overtakes an earlier one. Subjects run side by side.
async function publishRuns(
  publisher: Publisher,
  policy: RetryPolicy,
  runs: ClaimedDelivery[][],
  result: RelayBatchResult,
): Promise<RunsOutcome> {
  const outcome: RunsOutcome = { published: [], refused: [], stopped: [], untried: [] };
  await forEachLimit(runs, publisher.concurrency, async (run: ClaimedDelivery[]) => {
    for (const [i, delivery] of run.entries()) {
      if (result.unavailable) {
        outcome.untried.push(...run.slice(i).map((d) => d.id));
        return;
      }
      const span = startPublishSpan(publisher.name, delivery);
      try {
        const receipt = await publisher.publish(delivery);
        endPublishSpan(span, receipt.duplicate);
        outcome.published.push(delivery.id);
        if (receipt.duplicate) result.duplicates.push(delivery.id);
      } catch (error) {
        endPublishSpan(span, undefined, error);
        if (isPublishError(error) && error.unavailable) {
          result.unavailable ??= error;
          outcome.untried.push(...run.slice(i).map((d) => d.id));
        } else {
          const message = error instanceof Error ? error.message : String(error);
          outcome.refused.push({
            eventId: delivery.id,
            error: message,
            delayMs: retryDelayMs(policy, delivery.attempts + 1),
          });
          outcome.stopped.push(...run.slice(i + 1).map((d) => d.id));
        }
        return;
      }
    }
  });
  return outcome;
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
