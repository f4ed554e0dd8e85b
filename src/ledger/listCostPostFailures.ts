// Attempts whose cost the poster could not post, for operators (docs/ledger.md).
import type { Queryable } from '../db/createPool.js';

export interface CostPostFailure {
  attemptId: string;
  jobId: string;
  ownerId: string;
  provider: string;
  costMicros: number;
  /** Why the transfer was refused (URLs reduced to scheme, host and port). */
  error: string;
  failedAt: string;
}

const FAILURES_SQL = `
SELECT a.id, a.job_id, j.owner_id, a.provider, a.cost_micros::text, a.cost_post_error, a.cost_post_failed_at
FROM onejob.attempts a
JOIN onejob.jobs j ON j.id = a.job_id
WHERE a.cost_post_error IS NOT NULL AND a.cost_posted_at IS NULL
  AND ($1::text IS NULL OR j.owner_id = $1)
ORDER BY a.cost_post_failed_at, a.id
LIMIT $2`;

/**
 * Attempts whose cost the poster could not post, oldest failure first, for operators (all
 * owners unless `ownerId` is given). Fix the cause (for example an account that holds
 * another currency), then call retryCostPosts.
 */
export async function listCostPostFailures(
  db: Queryable,
  query: { ownerId?: string | undefined; limit?: number | undefined } = {},
): Promise<CostPostFailure[]> {
  const { rows } = await db.query<{
    id: string;
    job_id: string;
    owner_id: string;
    provider: string;
    cost_micros: string;
    cost_post_error: string;
    cost_post_failed_at: Date;
  }>(FAILURES_SQL, [query.ownerId ?? null, Math.min(Math.max(query.limit ?? 100, 1), 1000)]);
  return rows.map((r) => ({
    attemptId: r.id,
    jobId: r.job_id,
    ownerId: r.owner_id,
    provider: r.provider,
    costMicros: Number(r.cost_micros),
    error: r.cost_post_error,
    failedAt: r.cost_post_failed_at.toISOString(),
  }));
}
