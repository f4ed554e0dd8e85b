// An attempt's hold: a pending ledger transfer from the owner's usage account to the
// provider's, named after the attempt, so the trigger that records the attempt's outcome
// finds it and posts what the call cost or voids it (migrations/0013_budgets_and_holds.sql).
import type { Queryable } from '../db/createPool.js';
import { BUDGET_EXHAUSTED, sqlState } from '../db/sqlstate.js';
import { OnejobError } from '../errors/OnejobError.js';
import { attemptCostAccounts, attemptCostTransferId } from '../ledger/postAttemptCost.js';
import type { HoldPrice } from './holdPrice.js';

const ACCOUNTS_SQL = `
INSERT INTO onejob.ledger_accounts (owner_id, account, currency)
VALUES ($1, $2, $4), ($1, $3, $4)
ON CONFLICT DO NOTHING`;

const HOLD_SQL = `
INSERT INTO onejob.ledger_pending_transfers (owner_id, id, debit_account, credit_account, amount, currency, reference)
VALUES ($1, $2, $3, $4, $5, $6, $7)`;

// Only an attempt that has not ended: one abandoned or outraced meanwhile is not called.
// The row lock keeps it from ending until the hold commits with it.
const ATTEMPT_SQL = `
SELECT owner_id FROM onejob.attempts WHERE id = $1 AND state IN ('starting', 'running')
FOR NO KEY UPDATE`;

const MARK_SQL = 'UPDATE onejob.attempts SET hold_micros = $2 WHERE id = $1';

export interface AttemptHold extends HoldPrice {
  attemptId: string;
  jobId: string;
  provider: string;
}

/** The attempt ended before its hold was taken: it is not called. */
export class AttemptEnded extends Error {
  constructor(readonly attemptId: string) {
    super(`attempt ${attemptId} ended before its call`);
  }
}

/**
 * Takes an attempt's hold inside the caller's transaction, before its call. Throws
 * `budget_exhausted` (402) when the hold does not fit the owner's budget, with what the
 * budget had left in `details`; nothing is written then (the caller rolls back).
 */
export async function holdForAttempt(tx: Queryable, hold: AttemptHold): Promise<void> {
  const { rows } = await tx.query<{ owner_id: string }>(ATTEMPT_SQL, [hold.attemptId]);
  const ownerId = rows[0]?.owner_id;
  if (ownerId === undefined) throw new AttemptEnded(hold.attemptId);
  const accounts = attemptCostAccounts(hold.provider, hold.currency);
  await tx.query(ACCOUNTS_SQL, [ownerId, accounts.debitAccount, accounts.creditAccount, accounts.currency]);
  try {
    await tx.query(HOLD_SQL, [
      ownerId,
      attemptCostTransferId(hold.attemptId),
      accounts.debitAccount,
      accounts.creditAccount,
      hold.amountMicros,
      accounts.currency,
      `job:${hold.jobId}`,
    ]);
  } catch (error) {
    if (sqlState(error) === BUDGET_EXHAUSTED) throw budgetExhausted(error);
    throw error;
  }
  await tx.query(MARK_SQL, [hold.attemptId, hold.amountMicros]);
}

/** The problem a refused hold answers with, carrying the budget's figures from the trigger. */
export function budgetExhausted(error: unknown): OnejobError {
  let details: Record<string, unknown> = {};
  try {
    details = JSON.parse((error as { detail?: string }).detail ?? '{}') as Record<string, unknown>;
  } catch {}
  const { limitMicros, spentMicros, heldMicros, neededMicros, currency } = details as Record<string, number>;
  const available = Math.max(Number(limitMicros) - Number(spentMicros) - Number(heldMicros), 0);
  return new OnejobError(
    'budget_exhausted',
    `The call could cost up to ${neededMicros} micro-${currency}, and the budget has ${available} of ${limitMicros} left.`,
    { ...details, availableMicros: available },
  );
}
