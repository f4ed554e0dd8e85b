// onejob.outbox: your own events through the same outbox as onejob's, the exactly-once
// consumer helper, and the operator reads the HTTP layer serves.
import type { Queryable } from '../../db/createPool.js';
import { afterPublish, applyAfterWrite } from '../../events/afterWrite.js';
import { type ConsumeOnceResult, consumeOnce, pruneConsumerInbox } from '../../outbox/consumeOnce.js';
import {
  type DeadLetterPage,
  type DeadLetterQuery,
  listDeadLetters,
  replayDeadLetter,
} from '../../outbox/deadLetters.js';
import {
  type BacklogQuery,
  type DeliveryStateCount,
  outboxBacklog,
  outboxDeliveryStates,
  type PublisherBacklog,
} from '../../outbox/outboxBacklog.js';
import { type PublishEventInput, type PublishEventResult, publishEvent } from '../../outbox/publishEvent.js';
import type { TxOption, WakeupSender } from '../engineDeps.js';

/**
 * `onejob.outbox`: your own events through the transactional outbox, the exactly-once
 * consumer helper, and the operator reads.
 *
 * @example
 * ```ts
 * await onejob.outbox.publish({ type: 'shop.order.paid', subject: 'o-42', data: { amount: 1999 } }, { tx: client });
 * ```
 */
export interface OutboxHandle {
  /**
   * Writes an event into the outbox; the relay publishes it. With `{ tx }` it commits or
   * rolls back with your transaction: no event for a rolled-back write.
   */
  publish(input: PublishEventInput, options?: TxOption): Promise<PublishEventResult>;
  /**
   * Applies a consumed event's effect at most once per consumer. `tx` must be a client in
   * an open transaction; commit after this returns.
   */
  consumeOnce<T>(
    tx: Queryable,
    consumer: string,
    event: { id: string; type?: string },
    apply: () => Promise<T>,
  ): Promise<ConsumeOnceResult<T>>;
  /** Forgets ids a consumer saw before `before` (only ids that can no longer be redelivered). */
  pruneConsumed(consumer: string, before: Date): Promise<number>;
  /** Pending and dead deliveries per registered publisher; `ownerId` counts only that owner's jobs' events. */
  backlog(query?: BacklogQuery): Promise<PublisherBacklog[]>;
  /** Deliveries per publisher and state, published ones included; `ownerId` as for `backlog`. */
  deliveryStates(query?: BacklogQuery): Promise<DeliveryStateCount[]>;
  readonly deadLetters: {
    /** Dead letters newest first, one page at a time, optionally of one publisher or one owner's jobs. */
    list(query?: DeadLetterQuery): Promise<DeadLetterPage>;
    /** Sends a dead letter back to the relay (one publisher, or every one it is dead for); `dead_letter_not_found` otherwise. */
    replay(eventId: string, publisher?: string): Promise<{ eventId: string; publisher: string }[]>;
  };
}

/**
 * `wakeups`, when given, wakes the relays after a publish that committed on its own; a
 * publish in the caller's transaction waits for the relay's poll (or the caller's wake-up).
 */
export function createOutboxHandle(deps: {
  pool: Queryable;
  wakeups?: Pick<WakeupSender, 'outbox' | 'jobsQueued'>;
}): OutboxHandle {
  const { pool, wakeups } = deps;
  return {
    async publish(input, o) {
      const result = await publishEvent(o?.tx ?? pool, input);
      if (wakeups) applyAfterWrite({ wakeups }, afterPublish(result, o));
      return result;
    },
    consumeOnce: (tx, consumer, event, apply) => consumeOnce(tx, consumer, event, apply),
    pruneConsumed: (consumer, before) => pruneConsumerInbox(pool, consumer, before),
    backlog: (query) => outboxBacklog(pool, query),
    deliveryStates: (query) => outboxDeliveryStates(pool, query),
    deadLetters: {
      list: (query) => listDeadLetters(pool, query),
      replay: (eventId, publisher) => replayDeadLetter(pool, eventId, publisher),
    },
  };
}
