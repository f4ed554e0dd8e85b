import type pg from 'pg';
import { withTransaction } from '../db/withTransaction.js';
import { attemptsJson, JOB_COLUMNS, type JobRow, jobView } from './jobView.js';

export interface ArchiveResult {
  archived: number;
}

const PICK_SQL = `
SELECT ${attemptsJson('j.id')} AS attempts, ${JOB_COLUMNS}
FROM onejob.jobs j
WHERE state IN ('succeeded', 'failed', 'cancelled') AND finished_at < $1
ORDER BY finished_at
LIMIT $2
FOR UPDATE SKIP LOCKED`;

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
      const { rows } = await client.query<JobRow>(PICK_SQL, [
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
