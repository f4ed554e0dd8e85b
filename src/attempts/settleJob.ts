import type { Queryable } from '../db/createPool.js';
import { recordJobEvent } from '../events/recordJobEvent.js';
import type { Operation } from '../operations/operationRegistry.js';
import type { AttemptError } from '../providers/types.js';
import type { LockedJob } from './lockJob.js';
import { backoffMs } from './retryPolicy.js';
import { OPEN_JOB_STATES, type Settlement, settleAfterAttempt, sqlStates } from './stateMachine.js';

export interface SettleResult {
  state: LockedJob['state'];
  version: number;
  retryAt: Date | null;
}

const SETTLE_SQL = `
UPDATE onejob.jobs SET
  state = $3,
  version = version + $4::int,
  run_after = CASE WHEN $5::float8 IS NULL THEN run_after ELSE now() + make_interval(secs => $5::float8 / 1000) END,
  error = CASE WHEN $3 = 'failed' THEN $6::jsonb ELSE error END,
  finished_at = CASE WHEN $3 = 'failed' THEN now() ELSE finished_at END,
  updated_at = now()
WHERE id = $1 AND version = $2 AND completed_by IS NULL AND state IN (${sqlStates(OPEN_JOB_STATES)})
RETURNING state, version, run_after`;

/**
 * Moves a locked job on after one of its attempts ended without a result: retry later,
 * wait for the outcome (unknown), keep running (a sibling attempt is live), or fail.
 * `bump` adds a version bump of the caller's own (abandon fences the attempt out).
 */
export async function settleJob(
  tx: Queryable,
  job: LockedJob,
  operation: Operation,
  ended: { id: string; n: number; how: 'failed' | 'unknown' | 'abandoned'; error?: unknown },
  bump = false,
): Promise<SettleResult> {
  if (job.completed_by !== null || !OPEN_JOB_STATES.includes(job.state)) {
    return { state: job.state, version: job.version + (bump ? 1 : 0), retryAt: null };
  }
  const others = job.live.filter((a) => a.id !== ended.id);
  const next: Settlement = settleAfterAttempt({
    exclusive: operation.effect === 'exclusive',
    othersRunning: others.filter((a) => a.state === 'starting' || a.state === 'running').length,
    othersUnknown: others.filter((a) => a.state === 'unknown').length,
    ended: ended.how,
    attemptCount: job.attempt_count,
    maxAttempts: operation.maxAttempts,
  });
  const delay = next.retry ? backoffMs(job.attempt_count, operation.retry) : null;
  const error: AttemptError | null =
    next.state === 'failed'
      ? {
          code: 'attempts_exhausted',
          message: `All ${job.attempt_count} attempts failed.`,
          lastAttempt: ended.n,
          lastError: ended.error ?? null,
        }
      : null;
  const { rows } = await tx.query<{ state: LockedJob['state']; version: number; run_after: Date }>(
    SETTLE_SQL,
    [job.id, job.version, next.state, bump || next.state === 'failed' ? 1 : 0, delay, error],
  );
  const row = rows[0];
  if (!row) throw new Error(`job ${job.id} changed under its lock`);

  if (next.state === 'failed') {
    await recordJobEvent(tx, {
      jobId: job.id,
      attemptId: ended.id,
      type: 'failed',
      publish: 'onejob.job.failed',
      data: { state: 'failed', version: row.version, attempts: job.attempt_count, error },
      traceparent: job.traceparent,
    });
  } else if (next.state === 'unknown' && job.state !== 'unknown') {
    await recordJobEvent(tx, {
      jobId: job.id,
      attemptId: ended.id,
      type: 'unknown',
      publish: 'onejob.job.unknown',
      data: {
        state: 'unknown',
        version: row.version,
        attemptId: ended.id,
        n: ended.n,
        error: ended.error ?? null,
      },
      traceparent: job.traceparent,
    });
  } else if (next.retry) {
    await recordJobEvent(tx, {
      jobId: job.id,
      attemptId: ended.id,
      type: 'retry_scheduled',
      data: { after: ended.n, delayMs: delay, retryAt: row.run_after.toISOString() },
    });
  }
  return { state: row.state, version: row.version, retryAt: next.retry ? row.run_after : null };
}
