// How workers find work: queued jobs whose backoff has passed, and attempts started
// through the API that no worker owns yet. SKIP LOCKED lets any number of workers in
// any number of processes claim side by side without ever taking the same row.
import type { Queryable } from '../db/createPool.js';
import type { Operation, OperationRegistry } from '../operations/operationRegistry.js';
import { ATTEMPT_COLUMNS, type AttemptRow } from './attemptRow.js';
import { inTransaction } from './inTransaction.js';
import { type LockedJob, lockJob } from './lockJob.js';
import { insertAttempt } from './startAttempt.js';

export interface ClaimedAttempt {
  attempt: AttemptRow;
  job: Pick<LockedJob, 'id' | 'operation' | 'input' | 'traceparent'>;
  /** Seconds between the job becoming claimable and this claim. */
  waitedSeconds: number;
}

const PICK_SQL = `
SELECT id, extract(epoch FROM clock_timestamp() - run_after)::float8 AS waited
FROM onejob.jobs
WHERE state = 'queued' AND run_after <= now() AND operation = ANY($1::text[])
ORDER BY run_after, created_at
LIMIT 1
FOR NO KEY UPDATE SKIP LOCKED`;

/** Claims one queued job and starts its next attempt under this worker's lease. */
export async function claimQueuedJob(
  db: Queryable,
  operations: OperationRegistry,
  worker: {
    id: string;
    leaseMs: number;
    chooseProvider: (job: LockedJob, operation: Operation) => Promise<string>;
  },
): Promise<ClaimedAttempt | undefined> {
  return inTransaction(db, async (tx) => {
    // Only operations this process runs: code operations live in the processes that define them.
    const { rows } = await tx.query<{ id: string; waited: number }>(PICK_SQL, [operations.names()]);
    const picked = rows[0];
    if (!picked) return undefined;
    const job = await lockJob(tx, picked.id);
    if (!job) return undefined;
    const operation = operations.get(job.operation);
    if (!operation) {
      // Not ours to decide: another process may know the operation. Leave it queued, later.
      await tx.query(`UPDATE onejob.jobs SET run_after = now() + interval '30 seconds' WHERE id = $1`, [
        job.id,
      ]);
      return undefined;
    }
    const attempt = await insertAttempt(tx, job, operation, {
      provider: await worker.chooseProvider(job, operation),
      origin: job.attempt_count === 0 ? 'worker' : 'retry',
      leaseOwner: worker.id,
      leaseMs: worker.leaseMs,
    });
    return { attempt, job, waitedSeconds: Math.max(0, picked.waited) };
  });
}

const CLAIM_UNOWNED_SQL = `
WITH picked AS (
  SELECT id FROM onejob.attempts
  WHERE state = 'starting' AND lease_owner IS NULL
    AND ($3::text[] IS NULL OR job_id IN (SELECT id FROM onejob.jobs WHERE operation = ANY($3::text[])))
  ORDER BY started_at
  LIMIT 1
  FOR UPDATE SKIP LOCKED
)
UPDATE onejob.attempts a SET lease_owner = $1, lease_expires_at = now() + make_interval(secs => $2::float8 / 1000)
FROM picked WHERE a.id = picked.id
RETURNING ${ATTEMPT_COLUMNS.split(', ')
  .map((c) => `a.${c}`)
  .join(', ')},
  extract(epoch FROM clock_timestamp() - a.started_at)::float8 AS waited`;

const JOB_SQL = 'SELECT id, operation, input, traceparent FROM onejob.jobs WHERE id = $1';

/** Takes one attempt that was started through the API and waits for a worker. */
export async function claimUnownedAttempt(
  db: Queryable,
  worker: { id: string; leaseMs: number; operations?: string[] },
): Promise<ClaimedAttempt | undefined> {
  const { rows } = await db.query<AttemptRow & { waited: number }>(CLAIM_UNOWNED_SQL, [
    worker.id,
    worker.leaseMs,
    worker.operations ?? null,
  ]);
  const row = rows[0];
  if (!row) return undefined;
  const { waited, ...attempt } = row;
  const job = await db.query<ClaimedAttempt['job']>(JOB_SQL, [attempt.job_id]);
  if (!job.rows[0]) return undefined;
  return { attempt, job: job.rows[0], waitedSeconds: Math.max(0, waited) };
}
