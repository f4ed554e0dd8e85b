import type { Queryable } from '../db/createPool.js';
import { recordJobEvent } from '../events/recordJobEvent.js';
import type { Operation } from '../operations/operationRegistry.js';
import type { FinalBy } from '../providers/types.js';
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

/** How an attempt ended without a result. */
export interface EndedAttempt {
  id: string;
  n: number;
  how: 'failed' | 'unknown' | 'abandoned';
  error?: unknown;
  /**
   * The provider refused the call for now and is paused until then (failAttempt's `pause`):
   * the attempt used up none of maxAttempts, and a retry waits for the pause, not a backoff.
   */
  pausedUntil?: Date;
}

// The providers that failed this job for good: a pure job never goes back to them.
const FINAL_FAILURES_SQL = `
SELECT DISTINCT ON (provider) provider, error->>'finalBy' AS final_by FROM onejob.attempts
WHERE job_id = $1 AND state = 'failed' AND error ? 'finalBy' ORDER BY provider, n`;

function finalByOf(ended: EndedAttempt): FinalBy | undefined {
  if (ended.how !== 'failed' || typeof ended.error !== 'object' || ended.error === null) return undefined;
  const finalBy = (ended.error as { finalBy?: unknown }).finalBy;
  return finalBy === 'retryable_false' || finalBy === 'permanent_status' || finalBy === 'budget_exhausted'
    ? finalBy
    : undefined;
}

/**
 * The rule that forbids a retry, if one does. An exclusive job ends with its first final
 * failure. A pure job may fail over: it retries unless its next attempt would go (by the
 * provider `rotation`, the failover gate applied) to a provider that already failed it
 * for good. Without a rotation the caller knows of no other provider, so a final
 * failure is final.
 */
async function finalRule(
  tx: Queryable,
  job: LockedJob,
  operation: Operation,
  ended: EndedAttempt,
  rotation: readonly string[] | undefined,
): Promise<FinalBy | undefined> {
  const finalBy = finalByOf(ended);
  // The owner's budget, not the provider, refused the call: no other provider fits either.
  if (finalBy === 'budget_exhausted') return finalBy;
  if (operation.effect === 'exclusive' || (rotation === undefined && finalBy !== undefined)) return finalBy;
  if (rotation === undefined || rotation.length === 0) return undefined;
  const { rows } = await tx.query<{ provider: string; final_by: FinalBy }>(FINAL_FAILURES_SQL, [job.id]);
  const next = rotation[job.attempt_count % rotation.length];
  return rows.find((r) => r.provider === next)?.final_by;
}

/** The error of a failed job: `finalBy` names the rule that ended it. */
export interface JobFailure {
  code: 'attempts_exhausted' | 'failed_permanently' | 'budget_exhausted';
  message: string;
  finalBy: FinalBy | 'max_attempts';
  lastAttempt: number;
  lastError: unknown;
}

function jobError(job: LockedJob, ended: EndedAttempt, finalBy: FinalBy | undefined): JobFailure {
  const last = { lastAttempt: ended.n, lastError: ended.error ?? null };
  if (finalBy === undefined) {
    return {
      code: 'attempts_exhausted',
      message: `All ${job.attempt_count} attempts failed.`,
      finalBy: 'max_attempts',
      ...last,
    };
  }
  if (finalBy === 'budget_exhausted') {
    return {
      code: 'budget_exhausted',
      message: `Attempt ${ended.n} was not made: the owner's budget cannot hold what it could cost. Nothing was charged.`,
      finalBy,
      ...last,
    };
  }
  const why =
    finalBy === 'retryable_false'
      ? 'the operation said a retry cannot succeed'
      : 'the provider answered a status listed in permanentStatuses';
  return {
    code: 'failed_permanently',
    message: `Attempt ${ended.n} failed and no retry follows: ${why}.`,
    finalBy,
    ...last,
  };
}

/**
 * Moves a locked job on after one of its attempts ended without a result: retry later,
 * wait for the outcome (unknown), keep running (a sibling attempt is live), or fail.
 * `bump` adds a version bump of the caller's own (abandon fences the attempt out).
 * `rotation` is the provider of each attempt number of a pure operation (see
 * providerRotation), so a final failure may fail over to another provider.
 */
export async function settleJob(
  tx: Queryable,
  job: LockedJob,
  operation: Operation,
  ended: EndedAttempt,
  bump = false,
  rotation?: readonly string[],
): Promise<SettleResult> {
  if (job.completed_by !== null || !OPEN_JOB_STATES.includes(job.state)) {
    return { state: job.state, version: job.version + (bump ? 1 : 0), retryAt: null };
  }
  const others = job.live.filter((a) => a.id !== ended.id);
  const finalBy = await finalRule(tx, job, operation, ended, rotation);
  const next: Settlement = settleAfterAttempt({
    exclusive: operation.effect === 'exclusive',
    othersRunning: others.filter((a) => a.state === 'starting' || a.state === 'running').length,
    othersUnknown: others.filter((a) => a.state === 'unknown').length,
    ended: ended.how,
    attemptCount: job.attempt_count - job.throttled_count,
    maxAttempts: operation.maxAttempts,
    final: finalBy !== undefined,
  });
  const delay = !next.retry
    ? null
    : ended.pausedUntil
      ? Math.max(0, ended.pausedUntil.getTime() - Date.now())
      : backoffMs(job.attempt_count - job.throttled_count, operation.retry);
  const error: JobFailure | null = next.state === 'failed' ? jobError(job, ended, finalBy) : null;
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
