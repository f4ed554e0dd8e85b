import type { Queryable } from '../db/createPool.js';
import { OnejobError } from '../errors/OnejobError.js';
import {
  BUDGET_SELECT,
  type BudgetRow,
  type BudgetView,
  budgetView,
  checkBudgetCurrency,
  checkBudgetOwner,
} from './budgetView.js';

/** An owner's budget in one currency with its current period's usage; `budget_not_found` when it has none. */
export async function getBudget(db: Queryable, ownerId: string, currency: string): Promise<BudgetView> {
  checkBudgetOwner(ownerId);
  checkBudgetCurrency(currency);
  const { rows } = await db.query<BudgetRow>(`${BUDGET_SELECT} WHERE b.owner_id = $1 AND b.currency = $2`, [
    ownerId,
    currency,
  ]);
  const row = rows[0];
  if (!row) {
    throw new OnejobError(
      'budget_not_found',
      `Owner ${ownerId} has no budget in ${currency}: its spending in ${currency} is not limited.`,
    );
  }
  return budgetView(row);
}

/** Every budget of an owner, by currency; none when the owner is not limited. */
export async function listBudgets(db: Queryable, ownerId: string): Promise<{ items: BudgetView[] }> {
  const { rows } = await db.query<BudgetRow>(`${BUDGET_SELECT} WHERE b.owner_id = $1 ORDER BY b.currency`, [
    ownerId,
  ]);
  return { items: rows.map(budgetView) };
}
