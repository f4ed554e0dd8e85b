import type { Queryable } from '../db/createPool.js';
import { withTransaction } from '../db/withTransaction.js';
import { OnejobError } from '../errors/OnejobError.js';
import { recordJobEvent } from '../events/recordJobEvent.js';
import { lockJob } from './lockJob.js';
import { missingJob } from './startAttempt.js';
import { attemptStatesInto, jobStatesInto, sqlStates } from './stateMachine.js';

const CANCEL_SQL = `
UPDATE onejob.jobs SET state = 'cancelled', version = version + 1, finished_at = now(), updated_at = now()
WHERE id = $1 AND version = $2 AND completed_by IS NULL AND state IN (${sqlStates(jobStatesInto('cancelled'))})
RETURNING version`;

// Live attempts are fenced out with the job: their late results are discarded and recorded.
const ABANDON_LIVE_SQL = `
UPDATE onejob.attempts SET state = 'abandoned', finished_at = now(), lease_expires_at = NULL,
  error = '{"code": "job_cancelled", "message": "the job was cancelled"}'::jsonb
WHERE job_id = $1 AND state IN (${sqlStates(attemptStatesInto('abandoned'))})
RETURNING id, n, state, hold_micros::text`;

/**
 * Cancels a job that has no outcome yet. Cancelling a cancelled job answers the same
 * again; a succeeded or failed job refuses with `job_completed`. Cancelling does not
 * undo what an in-flight provider call may already have done; it stops the job from
 * taking any further result.
 */
export async function cancelJob(
  db: Queryable,
  req: { jobId: string; ownerId: string | null },
): Promise<{ cancelled: boolean }> {
  return withTransaction(db, async (tx) => {
    const job = await lockJob(tx, req.jobId, req.ownerId);
    if (!job) throw await missingJob(tx, req.jobId, req.ownerId);
    if (job.state === 'cancelled') return { cancelled: false };
    const { rows } = await tx.query<{ version: number }>(CANCEL_SQL, [job.id, job.version]);
    const version = rows[0]?.version;
    if (version === undefined) {
      throw new OnejobError(
        'job_completed',
        `Job ${job.id} is ${job.state}; it can no longer be cancelled.`,
        { jobId: job.id, jobState: job.state },
      );
    }
    const abandoned = await tx.query<{ id: string; n: number; hold_micros: string | null }>(
      ABANDON_LIVE_SQL,
      [job.id],
    );
    await recordJobEvent(tx, {
      jobId: job.id,
      type: 'cancelled',
      publish: 'onejob.job.cancelled',
      data: {
        state: 'cancelled',
        version,
        // Each one's budget hold, if it had one, is voided by the same statement.
        abandonedAttempts: abandoned.rows.map((a) => ({
          attemptId: a.id,
          n: a.n,
          ...(a.hold_micros !== null ? { holdVoidedMicros: Number(a.hold_micros) } : {}),
        })),
      },
      traceparent: job.traceparent,
    });
    return { cancelled: true };
  });
}
