import type { Queryable } from '../db/createPool.js';
import { NO_ACTIVE_SQL_TRANSACTION, sqlState } from '../db/sqlstate.js';

/** What `consumeOnce` returns: `applied: false` when this consumer already consumed the event. */
export type ConsumeOnceResult<T> = { applied: true; result: T } | { applied: false };

// Outside a transaction the inbox row would commit on its own and a failure in `apply`
// would leave the event marked as consumed with no effect. SAVEPOINT refuses to run
// outside a transaction block, which makes it a one-round-trip check.
const GUARD_SQL = 'SAVEPOINT onejob_consume_once; RELEASE SAVEPOINT onejob_consume_once';

// A concurrent delivery of the same id waits here for the first transaction: if that
// commits, this one finds the row and does nothing; if it rolls back, this one applies.
const RECORD_SQL = `
INSERT INTO onejob.consumer_inbox (consumer, event_id, event_type) VALUES ($1, $2, $3)
ON CONFLICT (consumer, event_id) DO NOTHING`;

/**
 * Applies the effect of an event at most once per consumer: records the event id in
 * `onejob.consumer_inbox` inside your transaction, then runs `apply` with your writes in
 * that same transaction. A redelivery of the same id returns `{ applied: false }` and
 * runs nothing. Commit or roll back the transaction yourself, after this returns.
 *
 * @example
 * ```ts
 * await client.query('BEGIN');
 * const outcome = await consumeOnce(client, 'orders', event, async () => {
 *   await client.query("UPDATE orders SET state = 'paid' WHERE id = $1", [event.subject]);
 * });
 * await client.query('COMMIT'); // outcome.applied is false for a redelivered event
 * ```
 */
export async function consumeOnce<T>(
  tx: Queryable,
  consumer: string,
  event: { id: string; type?: string },
  apply: () => Promise<T>,
): Promise<ConsumeOnceResult<T>> {
  if (!consumer) throw new TypeError('consumeOnce: name the consumer');
  if (!event?.id) throw new TypeError('consumeOnce: the event has no id');
  try {
    await tx.query(GUARD_SQL);
  } catch (error) {
    if (sqlState(error) === NO_ACTIVE_SQL_TRANSACTION) {
      throw new TypeError(
        'consumeOnce needs a client inside an open transaction (BEGIN first, COMMIT after)',
      );
    }
    throw error;
  }
  const { rowCount } = await tx.query(RECORD_SQL, [consumer, event.id, event.type ?? null]);
  if (!rowCount) return { applied: false };
  return { applied: true, result: await apply() };
}

const PRUNE_SQL = `DELETE FROM onejob.consumer_inbox WHERE consumer = $1 AND consumed_at < $2`;

/**
 * Forgets event ids consumed before `before`. Forget only ids that can no longer arrive
 * again: past your broker's redelivery horizon and any dead-letter replay (docs/outbox.md).
 *
 * @example
 * ```ts
 * await pruneConsumerInbox(pool, 'orders', new Date(Date.now() - 30 * 86_400_000));
 * ```
 */
export async function pruneConsumerInbox(db: Queryable, consumer: string, before: Date): Promise<number> {
  const { rowCount } = await db.query(PRUNE_SQL, [consumer, before]);
  return rowCount ?? 0;
}
