import type { Queryable } from '../db/createPool.js';
import { OnejobError } from '../errors/OnejobError.js';
import type { TransferRequest } from './checkTransferRequest.js';
import { type CreateTransferResult, createEngineTransfer } from './createTransfer.js';

/** The cost of one attempt, as `postAttemptCost` records it in the ledger. */
export interface AttemptCost {
  ownerId: string;
  attemptId: string;
  /** The provider that did (or raced to do) the work. */
  provider: string;
  /** Cost in micro-units of `currency` (1 USD = 1,000,000). */
  costMicros: number;
  /** ISO 4217 code of the provider's prices; default USD. */
  currency?: string | undefined;
  /** The job the attempt belongs to, kept as the transfer's reference. */
  jobId?: string | undefined;
}

/**
 * Accounts and currency an attempt's cost is posted with; costs never share an account with cents.
 *
 * @example
 * ```ts
 * attemptCostAccounts('openai', 'USD');
 * // { debitAccount: 'usage:USD_MICROS', creditAccount: 'provider:openai:USD_MICROS', currency: 'USD_MICROS' }
 * ```
 */
export function attemptCostAccounts(provider: string, currency = 'USD') {
  const unit = `${currency}_MICROS`;
  return { debitAccount: `usage:${unit}`, creditAccount: `provider:${provider}:${unit}`, currency: unit };
}

/**
 * The transfer id of an attempt's cost: one per attempt, whoever posts it and however often.
 *
 * @example
 * ```ts
 * const transfer = await getTransfer(pool, ownerId, attemptCostTransferId(attempt.id));
 * ```
 */
export const attemptCostTransferId = (attemptId: string) => `attempt-cost:${attemptId}`;

/**
 * Posts what an attempt cost as a transfer from the owner's usage account to the
 * provider's account, once per attempt: the transfer id is derived from the attempt id,
 * so posting again (a retried worker, a relay, a reconciler) replays instead of charging
 * twice. Attempts that lost a race are posted too: duplicated work shows up as money.
 * A zero cost posts nothing and returns null. Pass the client of the transaction that
 * records the attempt's outcome to commit both together.
 *
 * @example
 * ```ts
 * await postAttemptCost(pool, { ownerId: 'acme', attemptId: attempt.id, provider: 'openai', costMicros: 1250, currency: 'USD' });
 * ```
 */
export async function postAttemptCost(
  db: Queryable,
  cost: AttemptCost,
): Promise<CreateTransferResult | null> {
  const transfer = attemptCostTransfer(cost);
  // The reserved usage:/provider: accounts and attempt-cost: ids are the engine's to write.
  return transfer ? createEngineTransfer(db, transfer) : null;
}

/** The transfer that records an attempt's cost, or null for a zero cost. */
export function attemptCostTransfer(cost: AttemptCost): TransferRequest | null {
  if (!Number.isSafeInteger(cost.costMicros) || cost.costMicros < 0) {
    throw new OnejobError(
      'request_invalid',
      `costMicros must be a non-negative integer, got ${cost.costMicros}`,
    );
  }
  if (cost.costMicros === 0) return null;
  return {
    ownerId: cost.ownerId,
    id: attemptCostTransferId(cost.attemptId),
    ...attemptCostAccounts(cost.provider, cost.currency),
    amount: cost.costMicros,
    reference: cost.jobId ? `job:${cost.jobId}` : null,
  };
}
