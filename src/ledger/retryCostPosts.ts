// Releases attempts whose cost posting failed, once their cause is fixed (docs/ledger.md).
import type { Queryable } from '../db/createPool.js';

const RETRY_SQL = `
UPDATE onejob.attempts SET cost_post_error = NULL, cost_post_failed_at = NULL
WHERE cost_post_error IS NOT NULL AND cost_posted_at IS NULL AND ($1::uuid[] IS NULL OR id = ANY($1::uuid[]))`;

/** Clears recorded failures (the given attempts, or all) so the next pass posts them again. */
export async function retryCostPosts(db: Queryable, attemptIds?: string[]): Promise<number> {
  const { rowCount } = await db.query(RETRY_SQL, [attemptIds ?? null]);
  return rowCount ?? 0;
}
