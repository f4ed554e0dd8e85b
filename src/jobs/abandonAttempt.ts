import type { Queryable } from '../db/createPool.js';
import { withTransaction } from '../db/withTransaction.js';
import { OnejobError } from '../errors/OnejobError.js';
import { recordJobEvent } from '../events/recordJobEvent.js';
import type { OperationRegistry } from '../operations/operationRegistry.js';
import { lockJob } from './lockJob.js';
import { settleJob } from './settleJob.js';
import { missingJob } from './startAttempt.js';
import { attemptStatesInto, OPEN_JOB_STATES, sqlStates } from './stateMachine.js';

export interface AbandonRequest {
  jobId: string;
  ownerId: string | null;
  n: number;
  reason: string;
}

const ABANDON_SQL = `
UPDATE onejob.attempts SET state = 'abandoned', finished_at = now(), lease_expires_at = NULL, error = $3::jsonb
WHERE job_id = $1 AND n = $2 AND state IN (${sqlStates(attemptStatesInto('abandoned'))})
RETURNING id, state, hold_micros`;

// The abandon bumps the job version; every other live attempt carries the new version,
// so only the abandoned one is fenced out of the compare-and-swap.
const CARRY_SQL = `
UPDATE onejob.attempts SET job_version = $3
WHERE job_id = $1 AND id <> $2 AND state IN ('starting', 'running', 'unknown')`;

const EXISTS_SQL = 'SELECT state FROM onejob.attempts WHERE job_id = $1 AND n = $2';

/**
 * Gives up on a running or unknown attempt, explicitly. The job version moves on, so a
 * late result of that attempt can never complete the job; it is discarded and recorded
 * when it arrives. The job then retries after a backoff (or fails if no attempts are left).
 */
export async function abandonAttempt(
  db: Queryable,
  operations: OperationRegistry,
  req: AbandonRequest,
): Promise<{ attemptId: string }> {
  return withTransaction(db, async (tx) => {
    const job = await lockJob(tx, req.jobId, req.ownerId);
    if (!job) throw await missingJob(tx, req.jobId, req.ownerId);
    const refuse = (state: string) =>
      new OnejobError(
        'attempt_not_abandonable',
        `Attempt ${req.n} is ${state}; only a running or unknown attempt of an open job can be abandoned.`,
        {
          jobId: job.id,
          n: req.n,
          attemptState: state,
          jobState: job.state,
        },
      );
    if (!OPEN_JOB_STATES.includes(job.state) || job.completed_by !== null) {
      const { rows } = await tx.query<{ state: string }>(EXISTS_SQL, [job.id, req.n]);
      if (!rows[0]) throw new OnejobError('attempt_not_found', `Job ${job.id} has no attempt ${req.n}.`);
      throw refuse(rows[0].state);
    }
    const { rows } = await tx.query<{ id: string; state: string; hold_micros: string | null }>(ABANDON_SQL, [
      job.id,
      req.n,
      { code: 'abandoned', message: req.reason },
    ]);
    const abandoned = rows[0];
    if (!abandoned) {
      const existing = await tx.query<{ state: string }>(EXISTS_SQL, [job.id, req.n]);
      if (!existing.rows[0])
        throw new OnejobError('attempt_not_found', `Job ${job.id} has no attempt ${req.n}.`);
      throw refuse(existing.rows[0].state);
    }
    const previous = job.live.find((a) => a.id === abandoned.id)?.state ?? 'running';
    await tx.query(CARRY_SQL, [job.id, abandoned.id, job.version + 1]);
    const operation = operations.get(job.operation);
    const settled = operation
      ? await settleJob(
          tx,
          job,
          operation,
          { id: abandoned.id, n: req.n, how: 'abandoned', error: { code: 'abandoned', message: req.reason } },
          true,
        )
      : { version: job.version, state: job.state };
    await recordJobEvent(tx, {
      jobId: job.id,
      attemptId: abandoned.id,
      type: 'abandoned',
      data: {
        attemptId: abandoned.id,
        n: req.n,
        previousState: previous,
        reason: req.reason,
        version: settled.version,
        jobState: settled.state,
        // The attempt's hold was voided with this change (attempts_resolve_hold, migration 0013).
        ...(abandoned.hold_micros !== null ? { holdVoidedMicros: Number(abandoned.hold_micros) } : {}),
      },
      traceparent: job.traceparent,
    });
    return { attemptId: abandoned.id };
  });
}
