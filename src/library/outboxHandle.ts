// onejob.outbox: your own events through the same outbox as onejob's, the exactly-once
// consumer helper, and the operator reads the HTTP layer serves.
import type { Queryable } from '../db/createPool.js';
import type { TxOption } from '../engine/engineDeps.js';
import { type ConsumeOnceResult, consumeOnce, pruneConsumerInbox } from '../outbox/consumeOnce.js';
import { type DeadLetterPage, listDeadLetters, replayDeadLetter } from '../outbox/deadLetters.js';
import { outboxBacklog, type PublisherBacklog } from '../outbox/outboxBacklog.js';
import { type PublishEventInput, type PublishEventResult, publishEvent } from '../outbox/publishEvent.js';

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
  backlog(): Promise<PublisherBacklog[]>;
  deadLetters(query?: Parameters<typeof listDeadLetters>[1]): Promise<DeadLetterPage>;
  replayDeadLetter(eventId: string, publisher?: string): Promise<{ eventId: string; publisher: string }[]>;
}

export function createOutboxHandle(pool: Queryable): OutboxHandle {
  return {
    publish: (input, o) => publishEvent(o?.tx ?? pool, input),
    consumeOnce: (tx, consumer, event, apply) => consumeOnce(tx, consumer, event, apply),
    pruneConsumed: (consumer, before) => pruneConsumerInbox(pool, consumer, before),
    backlog: () => outboxBacklog(pool),
    deadLetters: (query) => listDeadLetters(pool, query),
    replayDeadLetter: (eventId, publisher) => replayDeadLetter(pool, eventId, publisher),
  };
}
