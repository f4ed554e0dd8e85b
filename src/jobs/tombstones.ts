import type { Queryable } from '../db/createPool.js';
import type { JobView } from './jobView.js';

export interface Tombstone {
  fingerprint: string;
  job: JobView;
}

const FIND_SQL = `
SELECT t.fingerprint, t.job_id, t.operation, t.final_state, t.idempotency_key, t.created_at, t.archived_at, a.doc
FROM onejob.job_tombstones t LEFT JOIN onejob.jobs_archive a ON a.job_id = t.job_id AND a.owner_id = t.owner_id
WHERE t.owner_id = $1 AND t.idempotency_key = $2`;

/** The archived job an idempotency key still names, if any. */
export async function findTombstone(
  db: Queryable,
  ownerId: string,
  key: string,
): Promise<Tombstone | undefined> {
  const { rows } = await db.query(FIND_SQL, [ownerId, key]);
  const row = rows[0];
  if (!row) return undefined;
  // The full document may have been purged from jobs_archive; the tombstone alone still answers.
  const job: JobView = row.doc ?? {
    id: row.job_id,
    operation: row.operation,
    state: row.final_state,
    version: 0,
    idempotencyKey: row.idempotency_key,
    input: {},
    result: null,
    error: null,
    completedBy: null,
    attempts: [],
    runAt: null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.archived_at.toISOString(),
  };
  // Documents archived before runAt existed lack it: none was asked.
  return {
    fingerprint: row.fingerprint,
    job: { ...job, runAt: job.runAt ?? null, archivedAt: row.archived_at.toISOString() },
  };
}
