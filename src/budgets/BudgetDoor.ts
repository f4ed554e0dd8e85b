// The up-front refusal of a new job whose owner's budget has nothing left. The guarantee
// is the hold before each call (holdForAttempt.ts); this only spares a client a job that
// could not run, and answers it 402 at once.
import type { OnejobConfig } from '../config/types.js';
import type { Queryable } from '../db/createPool.js';
import { OnejobError } from '../errors/OnejobError.js';
import type { OperationRegistry } from '../operations/operationRegistry.js';

const LEFT_SQL = `
SELECT b.limit_micros::float8 - coalesce(u.spent_micros, 0) - coalesce(u.held_micros, 0) AS available,
       b.limit_micros::float8 AS limit_micros
FROM onejob.budgets b
LEFT JOIN onejob.budget_usage u
  ON u.owner_id = b.owner_id AND u.currency = b.currency AND u.period = b.period
 AND u.period_start = onejob.budget_period_start(b.period, onejob.budget_now())
WHERE b.owner_id = $1 AND b.currency = $2`;

// A key already taken replays its job, whatever the budget says now.
const KNOWN_SQL = 'SELECT 1 FROM onejob.jobs WHERE owner_id = $1 AND idempotency_key = $2';

type Left = { available: number; limit_micros: number } | undefined;

/**
 * What is left of owners' budgets, read once for every request that asks while a read is
 * in flight: a burst of creates waits for one query, not one each, and reaches the group
 * commit together (src/jobs/createJobBatcher.ts).
 */
export class BudgetDoor {
  private readonly reads = new Map<string, Promise<Left>>();

  constructor(
    private readonly db: Queryable,
    private readonly config: Pick<OnejobConfig, 'providers'>,
    private readonly operations: OperationRegistry,
  ) {}

  /**
   * Throws `budget_exhausted` (402) when `operation`'s first provider is priced and the
   * owner's budget in its currency has nothing available for a new job.
   */
  async check(
    req: { ownerId: string; operation: string; idempotencyKey: string },
    tx?: Queryable,
  ): Promise<void> {
    const provider = this.operations.get(req.operation)?.providers[0];
    const prices = provider ? this.config.providers?.[provider]?.prices : undefined;
    if (!prices) return;
    const currency = prices.currency ?? 'USD';
    const db = tx ?? this.db;
    const left = tx ? await read(db, req.ownerId, currency) : await this.shared(req.ownerId, currency);
    if (!left || left.available > 0) return;
    if ((await db.query(KNOWN_SQL, [req.ownerId, req.idempotencyKey])).rowCount) return;
    throw new OnejobError(
      'budget_exhausted',
      `The ${currency} budget of owner ${req.ownerId} has nothing left of its ${left.limit_micros} micros for this period.`,
      { currency, availableMicros: 0, limitMicros: left.limit_micros },
    );
  }

  private shared(ownerId: string, currency: string): Promise<Left> {
    const key = `${ownerId}\u0000${currency}`;
    let reading = this.reads.get(key);
    if (!reading) {
      reading = read(this.db, ownerId, currency).finally(() => this.reads.delete(key));
      this.reads.set(key, reading);
    }
    return reading;
  }
}

async function read(db: Queryable, ownerId: string, currency: string): Promise<Left> {
  const { rows } = await db.query<{ available: number; limit_micros: number }>(LEFT_SQL, [ownerId, currency]);
  return rows[0];
}
