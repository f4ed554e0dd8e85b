import type pg from 'pg';
import type { OnejobConfig } from '../config/types.js';
import { withTransaction } from '../db/withTransaction.js';
import { FINISHED_ATTEMPT_STATES } from '../vocabulary/attemptStates.js';
import { postAttemptCost } from './postAttemptCost.js';

// Our own constants, so quoting them inline is safe.
const FINISHED = FINISHED_ATTEMPT_STATES.map((s) => `'${s}'`).join(', ');

// Finished attempts with a cost not yet in the ledger, oldest first. SKIP LOCKED lets
// several workers post at once without waiting on each other.
const PENDING_SQL = `
SELECT a.id, a.provider, a.cost_micros, j.owner_id, j.id AS job_id
FROM onejob.attempts a
JOIN onejob.jobs j ON j.id = a.job_id
WHERE a.cost_micros > 0 AND a.cost_posted_at IS NULL
  AND a.state IN (${FINISHED})
ORDER BY a.finished_at
LIMIT $1
FOR UPDATE OF a SKIP LOCKED`;

const MARK_SQL = 'UPDATE onejob.attempts SET cost_posted_at = now() WHERE id = ANY($1::uuid[])';

/**
 * Posts the cost of finished attempts to the ledger, losers of races included, so
 * duplicated work shows up as money: a transfer from the owner's usage account to the
 * provider's account per attempt. The transfer id is derived from the attempt id and the
 * flag is set in the same transaction, so a crash or two posters never post twice.
 * Returns how many attempts were posted.
 */
export async function postPendingAttemptCosts(
  pool: pg.Pool,
  config: OnejobConfig,
  limit = 200,
): Promise<number> {
  return withTransaction(pool, async (tx) => {
    const { rows } = await tx.query<{
      id: string;
      provider: string;
      cost_micros: string;
      owner_id: string;
      job_id: string;
    }>(PENDING_SQL, [limit]);
    for (const row of rows) {
      await postAttemptCost(tx, {
        ownerId: row.owner_id,
        attemptId: row.id,
        provider: row.provider,
        costMicros: Number(row.cost_micros),
        currency: config.providers[row.provider]?.prices?.currency ?? 'USD',
        jobId: row.job_id,
      });
    }
    if (rows.length) await tx.query(MARK_SQL, [rows.map((r) => r.id)]);
    return rows.length;
  });
}

/** Posts pending attempt costs every `intervalMs` until stopped. */
export function startCostPoster(
  pool: pg.Pool,
  config: OnejobConfig,
  onError: (error: unknown) => void,
  intervalMs = 1_000,
): () => Promise<void> {
  let stopped = false;
  let current: Promise<unknown> = Promise.resolve();
  const tick = async () => {
    if (stopped) return;
    current = postPendingAttemptCosts(pool, config).catch(onError);
    await current;
    if (!stopped) timer = setTimeout(tick, intervalMs);
  };
  let timer = setTimeout(tick, intervalMs);
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await current;
  };
}
