// onejob.budgets: per owner, currency and UTC period, what the engine may hold and spend
// on priced provider calls (docs/budgets.md). Every method takes `{ tx }` as its second argument.

import type { BudgetView } from '../../budgets/budgetView.js';
import { getBudget, listBudgets } from '../../budgets/getBudget.js';
import { type SetBudgetRequest, setBudget } from '../../budgets/setBudget.js';
import type { BudgetParams } from '../../contract/index.js';
import type { Queryable } from '../../db/createPool.js';
import type { TxOption } from '../engineDeps.js';

/** `onejob.budgets`: spending limits the database enforces when a call's cost is held. */
export interface BudgetsHandle {
  /** Sets or changes an owner's budget in a currency; it takes effect at once. */
  set(req: SetBudgetRequest, options?: TxOption): Promise<BudgetView>;
  /** One owner's budget in one currency, with its current period's usage; `budget_not_found` otherwise. */
  get(req: BudgetParams, options?: TxOption): Promise<BudgetView>;
  /** Every budget of an owner; `items` is empty when it is not limited. */
  list(req: { ownerId: string }, options?: TxOption): Promise<{ items: BudgetView[] }>;
}

export function createBudgetsHandle(deps: { pool: Queryable }): BudgetsHandle {
  const { pool } = deps;
  return {
    set: (req, o) => setBudget(o?.tx ?? pool, req),
    get: ({ ownerId, currency }, o) => getBudget(o?.tx ?? pool, ownerId, currency),
    list: ({ ownerId }, o) => listBudgets(o?.tx ?? pool, ownerId),
  };
}
