// The cost poster's pass: finished attempts' costs into the ledger, a batch at a time.
import type pg from 'pg';
import type { OnejobConfig } from '../config/types.js';
import { DEADLOCK_DETECTED, isDatabaseUnavailable, SERIALIZATION_FAILURE, sqlState } from '../db/sqlstate.js';
import { withTransaction } from '../db/withTransaction.js';
import type { Metrics } from '../observability/createMetrics.js';
import { redactedMessage } from '../observability/redactUrl.js';
import { FINISHED_ATTEMPT_STATES } from '../vocabulary/attemptStates.js';
import { type CheckedTransfer, checkTransferRequest } from './checkTransferRequest.js';
import { differentFields, sameTransfer } from './createTransfer.js';
import { createTransfersBatch } from './createTransfersBatch.js';
import { attemptCostTransfer, postAttemptCost } from './postAttemptCost.js';

// Our own constants, so quoting them inline is safe.
const FINISHED = FINISHED_ATTEMPT_STATES.map((s) => `'${s}'`).join(', ');

// Finished attempts with a cost not yet in the ledger, oldest first, except those whose
// posting failed (until an operator clears them). SKIP LOCKED lets several workers post
// at once without waiting on each other.
const PENDING_SQL = `
SELECT a.id, a.provider, a.cost_micros, j.owner_id, j.id AS job_id
FROM onejob.attempts a
JOIN onejob.jobs j ON j.id = a.job_id
WHERE a.cost_micros > 0 AND a.cost_posted_at IS NULL AND a.cost_post_error IS NULL
  AND a.state IN (${FINISHED})
ORDER BY a.finished_at
LIMIT $1
FOR UPDATE OF a SKIP LOCKED`;

const MARK_SQL = 'UPDATE onejob.attempts SET cost_posted_at = now() WHERE id = ANY($1::uuid[])';
const FAILED_SQL =
  'UPDATE onejob.attempts SET cost_post_error = $2, cost_post_failed_at = now() WHERE id = $1';

export interface CostPosterOptions {
  /** Attempts per pass. */
  limit?: number;
  /** Where onejob_cost_post_failures_total counts attempts whose cost could not be posted. */
  metrics?: Pick<Metrics, 'costPostFailures'> | undefined;
  /** Told about each attempt whose cost could not be posted (to log it). */
  onFailure?: (failure: { attemptId: string; ownerId: string; error: string }) => void;
}

/** Errors that say nothing about the attempt: the whole pass is retried later instead. */
function transient(error: unknown): boolean {
  const code = sqlState(error);
  return isDatabaseUnavailable(error) || code === DEADLOCK_DETECTED || code === SERIALIZATION_FAILURE;
}

interface PendingCost {
  id: string;
  provider: string;
  cost_micros: string;
  owner_id: string;
  job_id: string;
}

type PosterOptions = Pick<CostPosterOptions, 'metrics' | 'onFailure'>;

/**
 * Posts the cost of finished attempts to the ledger, losers of races included, so
 * duplicated work shows up as money: a transfer from the owner's usage account to the
 * provider's account per attempt. The transfer id is derived from the attempt id and the
 * flag is set in the same transaction, so a crash or two posters never post twice.
 *
 * A pass posts all its attempts in one batch statement (createTransfersBatch). If the
 * batch is refused, each attempt is posted under its own savepoint instead: an attempt
 * whose transfer is refused (an account in another currency, an amount out of range) is
 * rolled back alone, its error recorded on the attempt (`cost_post_error`) and skipped by
 * later passes, so it never holds up another attempt's or another owner's costs.
 * listCostPostFailures lists them; retryCostPosts puts them back once fixed;
 * startCostPoster runs passes on a timer. Returns how many attempts were posted.
 */
export async function postPendingAttemptCosts(
  pool: pg.Pool,
  config: OnejobConfig,
  options: CostPosterOptions = {},
): Promise<number> {
  const { limit = 200, ...rest } = options;
  return withTransaction(pool, async (tx) => {
    const { rows } = await tx.query<PendingCost>(PENDING_SQL, [limit]);
    if (rows.length === 0) return 0;
    const currency = (row: PendingCost) => config.providers[row.provider]?.prices?.currency ?? 'USD';
    const together = await postTogether(tx, rows, currency, rest);
    const posted = together ? together : await postOneByOne(tx, rows, currency, rest);
    if (posted.length) await tx.query(MARK_SQL, [posted]);
    return posted.length;
  });
}

const costOf = (row: PendingCost, currency: string) => ({
  ownerId: row.owner_id,
  attemptId: row.id,
  provider: row.provider,
  costMicros: Number(row.cost_micros),
  currency,
  jobId: row.job_id,
});

/**
 * The pass as one batch, in a savepoint. Returns the attempts posted (an existing
 * transfer of the same cost counts: an earlier pass wrote it), or undefined when the
 * batch was refused and rolled back, so each attempt must go alone.
 */
async function postTogether(
  tx: pg.PoolClient,
  rows: PendingCost[],
  currency: (row: PendingCost) => string,
  options: PosterOptions,
): Promise<string[] | undefined> {
  let transfers: CheckedTransfer[];
  try {
    transfers = rows.map((row) => checkTransferRequest(attemptCostTransfer(costOf(row, currency(row)))!));
  } catch {
    return undefined;
  }
  let outcome: Awaited<ReturnType<typeof createTransfersBatch>>;
  try {
    outcome = await createTransfersBatch(tx, transfers);
  } catch (error) {
    if (transient(error)) throw error;
    return undefined;
  }
  const posted: string[] = [];
  for (const [i, row] of rows.entries()) {
    const existing = outcome.existing[i];
    if (outcome.inserted[i]) posted.push(row.id);
    else if (existing && sameTransfer(existing, transfers[i]!)) posted.push(row.id);
    else {
      const error = existing
        ? differentFields(transfers[i]!.id, existing)
        : new Error('transfer not readable');
      await recordFailure(tx, row, error, options);
    }
  }
  return posted;
}

/** Each attempt under its own savepoint: one refused transfer rolls back alone. */
async function postOneByOne(
  tx: pg.PoolClient,
  rows: PendingCost[],
  currency: (row: PendingCost) => string,
  options: PosterOptions,
): Promise<string[]> {
  const posted: string[] = [];
  for (const row of rows) {
    await tx.query('SAVEPOINT attempt_cost');
    try {
      await postAttemptCost(tx, costOf(row, currency(row)));
      await tx.query('RELEASE SAVEPOINT attempt_cost');
      posted.push(row.id);
    } catch (error) {
      if (transient(error)) throw error;
      await tx.query('ROLLBACK TO SAVEPOINT attempt_cost');
      await recordFailure(tx, row, error, options);
    }
  }
  return posted;
}

async function recordFailure(
  tx: pg.PoolClient,
  row: PendingCost,
  error: unknown,
  { metrics, onFailure }: PosterOptions,
): Promise<void> {
  const message = redactedMessage(error).slice(0, 2000);
  await tx.query(FAILED_SQL, [row.id, message]);
  metrics?.costPostFailures.inc();
  onFailure?.({ attemptId: row.id, ownerId: row.owner_id, error: message });
}
