// The up-front refusal of a new job whose owner's budget has nothing left. The guarantee
// is the hold before each call (holdForAttempt.ts); this only spares a client a job that
// could not run, and answers it 402 at once.
import type { OnejobConfig } from '../config/types.js';
import type { Queryable } from '../db/createPool.js';
import { OnejobError } from '../errors/OnejobError.js';
import type { OperationRegistry } from '../operations/operationRegistry.js';

// A key already taken replays its job, whatever the budget says now.
const LEFT_SQL = `
SELECT b.limit_micros::float8 - coalesce(u.spent_micros, 0) - coalesce(u.held_micros, 0) AS available,
       b.limit_micros::float8 AS limit_micros,
       EXISTS (SELECT 1 FROM onejob.jobs j WHERE j.owner_id = $1 AND j.idempotency_key = $3) AS known
FROM onejob.budgets b
LEFT JOIN onejob.budget_usage u
  ON u.owner_id = b.owner_id AND u.currency = b.currency AND u.period = b.period
 AND u.period_start = onejob.budget_period_start(b.period, onejob.budget_now())
WHERE b.owner_id = $1 AND b.currency = $2`;

/**
 * Throws `budget_exhausted` (402) when `operation`'s first provider is priced and the
 * owner's budget in its currency has nothing available for a new job.
 */
export async function refuseWhenNothingLeft(
  db: Queryable,
  config: Pick<OnejobConfig, 'providers'>,
  operations: OperationRegistry,
  req: { ownerId: string; operation: string; idempotencyKey: string },
): Promise<void> {
  const provider = operations.get(req.operation)?.providers[0];
  const prices = provider ? config.providers?.[provider]?.prices : undefined;
  if (!prices) return;
  const currency = prices.currency ?? 'USD';
  const { rows } = await db.query<{ available: number; limit_micros: number; known: boolean }>(LEFT_SQL, [
    req.ownerId,
    currency,
    req.idempotencyKey,
  ]);
  const left = rows[0];
  if (!left || left.known || left.available > 0) return;
  throw new OnejobError(
    'budget_exhausted',
    `The ${currency} budget of owner ${req.ownerId} has nothing left of its ${left.limit_micros} micros for this period.`,
    { currency, availableMicros: 0, limitMicros: left.limit_micros },
  );
}
