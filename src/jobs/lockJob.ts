import type { Queryable } from '../db/createPool.js';
import type { AttemptState, JobState } from './stateMachine.js';

export interface LockedJob {
  id: string;
  owner_id: string;
  operation: string;
  input: Record<string, unknown>;
  state: JobState;
  version: number;
  completed_by: string | null;
  attempt_count: number;
  /** Attempts that met a provider's pause (429/503 with Retry-After): they use up no attempt. */
  throttled_count: number;
  traceparent: string | null;
  /** The job's attempts that may still produce a result. */
  live: { id: string; n: number; state: AttemptState; provider: string }[];
}

// Every change to a job or its attempts takes this row lock first, so the changes of
// one job serialise in one order (job row, then attempt rows) and never deadlock. The
// UPDATEs that follow still carry their own conditions.
const LOCK_SQL = `
SELECT id, owner_id, operation, input, state, version, completed_by, attempt_count, throttled_count, traceparent
FROM onejob.jobs
WHERE id = $1 AND ($2::text IS NULL OR owner_id = $2)
FOR NO KEY UPDATE`;

// A separate statement, so its snapshot is taken after the lock was granted and sees
// every change committed by whoever held the lock before us.
const LIVE_SQL = `
SELECT id, n, state, provider FROM onejob.attempts
WHERE job_id = $1 AND state IN ('starting', 'running', 'unknown') ORDER BY n`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Locks the job row (inside the caller's transaction) and reads it with its live attempts. */
export async function lockJob(
  tx: Queryable,
  jobId: string,
  ownerId: string | null = null,
): Promise<LockedJob | undefined> {
  if (!UUID.test(jobId)) return undefined;
  const { rows } = await tx.query<Omit<LockedJob, 'live'>>(LOCK_SQL, [jobId, ownerId]);
  const job = rows[0];
  if (!job) return undefined;
  const live = await tx.query<LockedJob['live'][number]>(LIVE_SQL, [jobId]);
  return { ...job, live: live.rows };
}
