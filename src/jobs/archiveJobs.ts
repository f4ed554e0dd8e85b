import type pg from 'pg';
import { withTransaction } from '../db/withTransaction.js';
import { attemptsJson, type JobRow, jobColumns, jobView } from './jobView.js';

export interface ArchiveResult {
  archived: number;
}

// Old settled jobs, owner by owner on jobs_owner_newest (owner, created_at): a job finished
// before the cutoff was created before it, so each owner's jobs are read oldest first and
// only as far as the cutoff. The owners are found by a skip-scan (one probe per owner).
// No index names `finished_at` or `state`, so settling a job stays an in-place (HOT)
// update (migration 0022); jobs still open and older than the cutoff are read and passed
// over. An owner's lateral pick locks its own rows (SKIP LOCKED, as before).
export const ARCHIVE_PICK_SQL = `
WITH RECURSIVE owners (owner_id) AS (
  (SELECT j.owner_id FROM onejob.jobs j ORDER BY j.owner_id LIMIT 1)
  UNION ALL
  SELECT (SELECT j.owner_id FROM onejob.jobs j WHERE j.owner_id > o.owner_id ORDER BY j.owner_id LIMIT 1)
  FROM owners o WHERE o.owner_id IS NOT NULL
)
SELECT ${attemptsJson('j.id')} AS attempts, ${jobColumns('j')}
FROM owners o
CROSS JOIN LATERAL (
  SELECT * FROM onejob.jobs x
  WHERE x.owner_id = o.owner_id AND x.created_at < $1
    AND x.state IN ('succeeded', 'failed', 'cancelled') AND x.finished_at < $1
  ORDER BY x.created_at
  LIMIT $2
  FOR UPDATE SKIP LOCKED
) j
LIMIT $2`;

const MOVE_SQL = `
WITH docs AS (
  SELECT * FROM jsonb_to_recordset($1::jsonb) AS d(
    job_id uuid, owner_id text, idempotency_key text, fingerprint text, operation text,
    final_state text, created_at timestamptz, finished_at timestamptz, doc jsonb)
), tombstones AS (
  INSERT INTO onejob.job_tombstones
    (owner_id, idempotency_key, fingerprint, job_id, operation, final_state, created_at, finished_at)
  SELECT owner_id, idempotency_key, fingerprint, job_id, operation, final_state, created_at, finished_at FROM docs
), archive AS (
  INSERT INTO onejob.jobs_archive (job_id, owner_id, doc) SELECT job_id, owner_id, doc FROM docs
)
DELETE FROM onejob.jobs WHERE id IN (SELECT job_id FROM docs)`;

/**
 * Moves finished jobs older than `finishedBefore` out of the hot tables. Each keeps a
 * tombstone (owner, key, fingerprint, job id, final state), so a retry of its key months
 * later still gets the original job or a 409, never a second job. Runs in batches;
 * concurrent archivers skip each other's rows.
 */
export async function archiveJobs(
  pool: pg.Pool,
  finishedBefore: Date,
  options: { batchSize?: number; maxJobs?: number } = {},
): Promise<ArchiveResult> {
  const batchSize = options.batchSize ?? 500;
  const maxJobs = options.maxJobs ?? Number.POSITIVE_INFINITY;
  let archived = 0;
  while (archived < maxJobs) {
    const moved = await withTransaction(pool, async (client) => {
      const { rows } = await client.query<JobRow>(ARCHIVE_PICK_SQL, [
        finishedBefore,
        Math.min(batchSize, maxJobs - archived),
      ]);
      if (rows.length === 0) return 0;
      const docs = rows.map((row) => ({
        job_id: row.id,
        owner_id: row.owner_id,
        idempotency_key: row.idempotency_key,
        fingerprint: row.fingerprint,
        operation: row.operation,
        final_state: row.state,
        created_at: row.created_at,
        finished_at: row.finished_at,
        doc: jobView(row),
      }));
      await client.query(MOVE_SQL, [JSON.stringify(docs)]);
      return rows.length;
    });
    archived += moved;
    if (moved < batchSize) break;
  }
  return { archived };
}
