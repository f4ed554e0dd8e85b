import { v7 as uuidv7 } from 'uuid';
import { holdForAttempt } from '../budgets/holdForAttempt.js';
import type { HoldPrice } from '../budgets/holdPrice.js';
import type { Queryable } from '../db/createPool.js';
import { sqlState, UNIQUE_VIOLATION } from '../db/sqlstate.js';
import { withTransaction } from '../db/withTransaction.js';
import { OnejobError } from '../errors/OnejobError.js';
import type { Operation, OperationRegistry } from '../operations/operationRegistry.js';
import { NoProviderSlot, takeProviderSlot } from '../providers/providerSlots.js';
import { ATTEMPT_COLUMNS, type AttemptRow } from './attemptRow.js';
import { type LockedJob, lockJob } from './lockJob.js';
import { jobStatesInto, refuseStart, type StartRefusal, sqlStates } from './stateMachine.js';

export type AttemptOrigin = AttemptRow['origin'];

export interface StartAttemptRequest {
  jobId: string;
  /** Scope the job to this owner (API calls); null for the worker. */
  ownerId?: string | null;
  origin: AttemptOrigin;
  /** The provider, or a function choosing it once the job (and so the attempt number) is known. */
  provider: string | ((job: LockedJob, operation: Operation) => Promise<string> | string);
  /** The worker taking the attempt now; null leaves it for any worker to pick up. */
  leaseOwner: string | null;
  leaseMs: number;
  /**
   * Providers with a `maxConcurrency`: the attempt takes a slot of its provider in the same
   * transaction, or nothing starts and NoProviderSlot is thrown (hedges).
   */
  caps?: Record<string, number>;
  /**
   * What a call to `provider` with the job's input is held for (src/budgets/holdPrice.ts):
   * the hold is taken in the same transaction, or nothing starts and `budget_exhausted`
   * is thrown. Absent: the caller holds later, before its call (the worker's claim).
   */
  price?: (
    provider: string,
    operation: Operation,
    input: Record<string, unknown>,
  ) => Promise<HoldPrice | undefined>;
}

export interface StartedAttempt {
  attempt: AttemptRow;
  job: LockedJob;
  operation: Operation;
}

// Starting an attempt moves the job to running and counts the attempt, but leaves the
// version alone: the attempt's CAS token is the version it read here. For exclusive jobs
// the unique index attempts_one_live_exclusive refuses a second live attempt even if
// every check in the code were wrong.
const INSERT_SQL = `
WITH job AS (
  UPDATE onejob.jobs SET state = 'running', attempt_count = attempt_count + 1, updated_at = now()
  WHERE id = $1 AND version = $2 AND completed_by IS NULL AND state IN (${sqlStates(jobStatesInto('running'))})
  RETURNING id, owner_id, version, attempt_count
)
INSERT INTO onejob.attempts (id, job_id, owner_id, n, provider, exclusive, origin, state, job_version, lease_owner, lease_expires_at)
SELECT $3, id, owner_id, attempt_count, $4, $5, $6, 'starting', version, $7::text,
       CASE WHEN $7::text IS NULL THEN NULL ELSE now() + make_interval(secs => $8::float8 / 1000) END
FROM job
RETURNING ${ATTEMPT_COLUMNS}`;

const ARCHIVED_SQL =
  'SELECT 1 FROM onejob.jobs_archive WHERE job_id = $1 AND ($2::text IS NULL OR owner_id = $2)';

/** No live job row: an archived job is finished, anything else does not exist for this owner. */
export async function missingJob(db: Queryable, jobId: string, ownerId: string | null): Promise<OnejobError> {
  const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
  const { rowCount } = UUID.test(jobId) ? await db.query(ARCHIVED_SQL, [jobId, ownerId]) : { rowCount: 0 };
  return rowCount
    ? new OnejobError('job_completed', `Job ${jobId} is finished and archived.`, { jobId })
    : new OnejobError('job_not_found', `No job ${jobId} for this owner.`);
}

const REFUSALS: Record<StartRefusal, string> = {
  job_completed: 'The job already has a final outcome; a new attempt cannot change it.',
  attempt_outcome_unknown:
    'An earlier attempt has an unknown outcome. It may still have taken effect: wait for reconciliation or abandon it first.',
  attempt_in_flight: 'An attempt of this job is still starting or running.',
  max_attempts_reached: 'The job has used all of its attempts.',
};

function refusal(code: StartRefusal, job: LockedJob): OnejobError {
  return new OnejobError(code, REFUSALS[code], {
    jobId: job.id,
    jobState: job.state,
    liveAttempts: job.live.map((a) => ({ n: a.n, state: a.state })),
  });
}

/**
 * Inserts an attempt for a job already locked by the caller's transaction, after the
 * state machine agreed. The attempt row is its start in the job's history (onejob.job_history).
 */
export async function insertAttempt(
  tx: Queryable,
  job: LockedJob,
  operation: Operation,
  req: { provider: string; origin: AttemptOrigin; leaseOwner: string | null; leaseMs: number },
): Promise<AttemptRow> {
  const code = refuseStart({
    jobState: job.state,
    exclusive: operation.effect === 'exclusive',
    live: job.live.map((a) => a.state),
    attemptCount: job.attempt_count - job.throttled_count,
    maxAttempts: operation.maxAttempts,
  });
  if (code) throw refusal(code, job);
  const id = uuidv7();
  let rows: AttemptRow[];
  try {
    ({ rows } = await tx.query<AttemptRow>(INSERT_SQL, [
      job.id,
      job.version,
      id,
      req.provider,
      operation.effect === 'exclusive',
      req.origin,
      req.leaseOwner,
      req.leaseMs,
    ]));
  } catch (error) {
    if (
      sqlState(error) === UNIQUE_VIOLATION &&
      (error as { constraint?: string }).constraint === 'attempts_one_live_exclusive'
    ) {
      throw refusal(
        job.live.some((a) => a.state === 'unknown') ? 'attempt_outcome_unknown' : 'attempt_in_flight',
        job,
      );
    }
    throw error;
  }
  const attempt = rows[0];
  if (!attempt) throw refusal('job_completed', job);
  return attempt;
}

/**
 * Starts an attempt of a job now (the fallback button, hedges). Refuses with
 * `attempt_in_flight`, `attempt_outcome_unknown`, `job_completed` or
 * `max_attempts_reached` as the state machine says.
 */
export async function startAttempt(
  db: Queryable,
  operations: OperationRegistry,
  req: StartAttemptRequest,
): Promise<StartedAttempt> {
  return withTransaction(db, async (tx) => {
    const job = await lockJob(tx, req.jobId, req.ownerId ?? null);
    if (!job) throw await missingJob(tx, req.jobId, req.ownerId ?? null);
    const operation = operations.get(job.operation);
    if (!operation)
      throw new OnejobError('operation_unknown', `Operation "${job.operation}" is no longer configured.`);
    const provider = typeof req.provider === 'string' ? req.provider : await req.provider(job, operation);
    const attempt = await insertAttempt(tx, job, operation, {
      provider,
      origin: req.origin,
      leaseOwner: req.leaseOwner,
      leaseMs: req.leaseMs,
    });
    if (req.caps && !(await takeProviderSlot(tx, req.caps, provider, attempt.id)))
      throw new NoProviderSlot(provider);
    const price = await req.price?.(provider, operation, job.input);
    if (price) await holdForAttempt(tx, { ...price, attemptId: attempt.id, jobId: job.id, provider });
    return { attempt, job, operation };
  });
}
