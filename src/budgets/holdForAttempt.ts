// An attempt's hold: a pending ledger transfer from the owner's usage account to the
// provider's, named after the attempt, so the trigger that records the attempt's outcome
// finds it and posts what the call cost or voids it (migrations/0013_budgets_and_holds.sql).
import type { Queryable } from '../db/createPool.js';
import { OnejobError } from '../errors/OnejobError.js';
import type { HoldPrice } from './holdPrice.js';

// One statement takes the holds of any number of attempts (migration 0020): an attempt
// that has ended is left out of its answer, a hold that does not fit is answered
// `refused` and leaves nothing. A single hold is a batch of one.
export const TAKE_HOLDS_SQL = 'SELECT attempt_id, outcome, detail FROM onejob.take_attempt_holds($1::jsonb)';

export interface AttemptHold extends HoldPrice {
  attemptId: string;
  jobId: string;
  provider: string;
}

/** An attempt's hold as take_attempt_holds reads it. */
export function holdRow(hold: AttemptHold): Record<string, unknown> {
  return {
    attempt_id: hold.attemptId,
    job_id: hold.jobId,
    provider: hold.provider,
    amount: hold.amountMicros,
    currency: hold.currency,
  };
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
 * budget had left in `details`, and AttemptEnded when the attempt ended meanwhile;
 * nothing is written then.
 */
export async function holdForAttempt(tx: Queryable, hold: AttemptHold): Promise<void> {
  const { rows } = await tx.query<{ outcome: 'held' | 'refused'; detail: string | null }>(TAKE_HOLDS_SQL, [
    JSON.stringify([holdRow(hold)]),
  ]);
  const taken = rows[0];
  if (!taken) throw new AttemptEnded(hold.attemptId);
  if (taken.outcome === 'refused') throw budgetExhausted({ detail: taken.detail });
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
