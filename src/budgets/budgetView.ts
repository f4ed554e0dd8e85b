// Budget rows to their public representation (contract section 8).
import type { Budget } from '../contract/index.js';
import { OnejobError } from '../errors/OnejobError.js';
import { isoMicros, toAmount } from '../ledger/transferView.js';

/** An owner's budget in one currency and its current period: the wire contract's shape. */
export type BudgetView = Budget;
/** `total` never resets; `day` and `month` start in UTC. */
export type BudgetPeriod = Budget['period'];
export const BUDGET_PERIODS: readonly BudgetPeriod[] = ['total', 'day', 'month'];
export const BUDGET_CURRENCY_PATTERN = /^[A-Z]{3}$/;

export interface BudgetRow {
  owner_id: string;
  currency: string;
  limit_micros: string;
  period: BudgetPeriod;
  period_start: string;
  spent_micros: string;
  held_micros: string;
}

// The budget and the usage row of its current period (absent until the first hold or the
// budget's creation in that period: nothing spent or held yet). Periods start in UTC on
// onejob.budget_now(), the clock the hold trigger reads.
export const BUDGET_SELECT = `
SELECT b.owner_id, b.currency, b.limit_micros, b.period, ${isoMicros('s.start')} AS period_start,
       coalesce(u.spent_micros, 0) AS spent_micros, coalesce(u.held_micros, 0) AS held_micros
FROM onejob.budgets b
CROSS JOIN LATERAL (SELECT onejob.budget_period_start(b.period, onejob.budget_now()) AS start) s
LEFT JOIN onejob.budget_usage u
  ON u.owner_id = b.owner_id AND u.currency = b.currency AND u.period = b.period AND u.period_start = s.start`;

export function budgetView(row: BudgetRow): BudgetView {
  const limitMicros = toAmount(row.limit_micros);
  const spentMicros = toAmount(row.spent_micros);
  const heldMicros = toAmount(row.held_micros);
  return {
    ownerId: row.owner_id,
    currency: row.currency,
    limitMicros,
    period: row.period,
    periodStart: row.period_start,
    spentMicros,
    heldMicros,
    // A limit lowered below what is spent leaves nothing, never a negative amount.
    availableMicros: Math.max(0, limitMicros - spentMicros - heldMicros),
  };
}

export function checkBudgetCurrency(currency: unknown): string {
  if (typeof currency !== 'string' || !BUDGET_CURRENCY_PATTERN.test(currency)) {
    throw new OnejobError('request_invalid', 'currency must be three capital letters, such as USD');
  }
  return currency;
}

export function checkBudgetOwner(ownerId: unknown): string {
  if (typeof ownerId !== 'string' || ownerId.length < 1 || ownerId.length > 200) {
    throw new OnejobError('request_invalid', 'ownerId must be a string of 1 to 200 characters');
  }
  return ownerId;
}
