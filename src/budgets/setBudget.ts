import type { BudgetParams, SetBudgetBody } from '../contract/index.js';
import type { Queryable } from '../db/createPool.js';
import { withTransaction } from '../db/withTransaction.js';
import { OnejobError } from '../errors/OnejobError.js';
import {
  BUDGET_PERIODS,
  BUDGET_SELECT,
  type BudgetRow,
  type BudgetView,
  budgetView,
  checkBudgetCurrency,
  checkBudgetOwner,
} from './budgetView.js';

/**
 * An owner's budget in one currency: at most `limitMicros` spent and held per `period`.
 * The path and body of `PUT /v1/budgets/{ownerId}/{currency}` (src/contract); the engine's
 * holds in `currency` (three capital letters) debit `usage:<CURRENCY>_MICROS`.
 */
export type SetBudgetRequest = BudgetParams & SetBudgetBody;

const UPSERT_SQL = `
INSERT INTO onejob.budgets (owner_id, currency, limit_micros, period, updated_at)
VALUES ($1, $2, $3, $4, now())
ON CONFLICT (owner_id, currency) DO UPDATE
  SET limit_micros = EXCLUDED.limit_micros, period = EXCLUDED.period, updated_at = now()`;

// A period's usage row starts from what the ledger shows as spent in it, when the budget is
// created (or its period changes) and the row does not exist yet: calls made before the
// budget count against it. When the row exists the holds' triggers keep it, so it is left
// alone. The budget row's lock, taken by the upsert above, makes a hold's trigger wait
// for this transaction and then read the row written here.
const INIT_USAGE_SQL = `
INSERT INTO onejob.budget_usage (owner_id, currency, period, period_start, spent_micros)
SELECT $1, $2, $3, s.start,
       coalesce((SELECT sum(t.amount) FROM onejob.ledger_transfers t
                 WHERE t.owner_id = $1 AND t.debit_account = 'usage:' || $2 || '_MICROS'
                   AND t.recorded_at >= s.start), 0)
FROM (SELECT onejob.budget_period_start($3, onejob.budget_now()) AS start) s
ON CONFLICT (owner_id, currency, period, period_start) DO NOTHING`;

/**
 * Sets or changes an owner's budget; it takes effect at once (the next hold reads it).
 * Returns the budget with its current period's usage.
 *
 * @example
 * ```ts
 * await setBudget(pool, { ownerId: 'acme', currency: 'USD', limitMicros: 5_000_000, period: 'day' });
 * ```
 */
export async function setBudget(db: Queryable, req: SetBudgetRequest): Promise<BudgetView> {
  const ownerId = checkBudgetOwner(req.ownerId);
  const currency = checkBudgetCurrency(req.currency);
  const { limitMicros, period } = req;
  if (typeof limitMicros !== 'number' || !Number.isSafeInteger(limitMicros) || limitMicros < 0) {
    throw new OnejobError(
      'request_invalid',
      'limitMicros must be an integer from 0 to 2^53 - 1, in millionths of the currency unit',
    );
  }
  if (!BUDGET_PERIODS.includes(period)) {
    throw new OnejobError('request_invalid', `period must be one of ${BUDGET_PERIODS.join(', ')}`);
  }
  return withTransaction(db, async (tx) => {
    await tx.query(UPSERT_SQL, [ownerId, currency, limitMicros, period]);
    await tx.query(INIT_USAGE_SQL, [ownerId, currency, period]);
    const { rows } = await tx.query<BudgetRow>(`${BUDGET_SELECT} WHERE b.owner_id = $1 AND b.currency = $2`, [
      ownerId,
      currency,
    ]);
    return budgetView(rows[0] as BudgetRow);
  });
}
