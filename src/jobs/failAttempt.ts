import type { Queryable } from '../db/createPool.js';
import { withTransaction } from '../db/withTransaction.js';
import { recordJobEvent } from '../events/recordJobEvent.js';
import type { OperationRegistry } from '../operations/operationRegistry.js';
import type { AttemptError, Usage } from '../providers/types.js';
import { lockJob } from './lockJob.js';
import { type SettleResult, settleJob } from './settleJob.js';
import { attemptStatesInto, sqlStates } from './stateMachine.js';

export interface AttemptFailure {
  error: AttemptError;
  rejectedOutput?: unknown;
  usage?: Usage | undefined;
  costMicros?: number | undefined;
}

export interface FailOptions {
  /** Only if the attempt's lease has expired (the lease sweeper), so a live worker is never overruled. */
  leaseExpiredOnly?: boolean;
  /** Only if the attempt is in one of these states. */
  from?: readonly ('starting' | 'running' | 'unknown')[];
  /** A pure operation's provider for each attempt number, so a final failure may fail over (settleJob). */
  rotation?: readonly string[];
  /**
   * The provider answered 429 or 503 with Retry-After (providerThrottle.ts): it is paused for
   * every worker until `until`, in the same transaction, and the attempt uses up none of
   * maxAttempts; the job runs again after the pause.
   */
  pause?: { provider: string; until: Date; status: number };
}

export type FailResult = { failed: true; job: SettleResult } | { failed: false };

const JOB_OF_SQL = 'SELECT job_id FROM onejob.attempts WHERE id = $1';

// A later pause never shortens a longer one already recorded.
const PAUSE_SQL = `
INSERT INTO onejob.provider_pauses AS p (provider, until, since, status, attempt_id)
VALUES ($1, $2, now(), $3, $4)
ON CONFLICT (provider) DO UPDATE SET until = excluded.until, since = excluded.since,
  status = excluded.status, attempt_id = excluded.attempt_id
WHERE p.until < excluded.until`;

const UNCOUNT_SQL = 'UPDATE onejob.jobs SET throttled_count = throttled_count + 1 WHERE id = $1';

const FAIL_SQL = `
UPDATE onejob.attempts SET state = 'failed', finished_at = now(), lease_expires_at = NULL, error = $2::jsonb,
  rejected_output = $3::jsonb, usage = coalesce($4::jsonb, usage), cost_micros = coalesce($5, cost_micros)
WHERE id = $1 AND state IN (${sqlStates(attemptStatesInto('failed'))}) AND state = ANY($6::text[])
  AND (NOT $7::boolean OR lease_expires_at < now())
RETURNING n`;

/**
 * Records a definite failure: the provider proved the work was not done (or the call
 * never left). Only then may the job retry, after a backoff, up to maxAttempts, unless
 * the failure is final (`error.finalBy`): see settleJob.
 */
export async function failAttempt(
  db: Queryable,
  operations: OperationRegistry,
  attemptId: string,
  failure: AttemptFailure,
  options: FailOptions = {},
): Promise<FailResult> {
  return withTransaction(db, async (tx) => {
    const { rows: of } = await tx.query<{ job_id: string }>(JOB_OF_SQL, [attemptId]);
    const job = of[0] ? await lockJob(tx, of[0].job_id) : undefined;
    if (!job) return { failed: false };
    const { rows } = await tx.query<{ n: number }>(FAIL_SQL, [
      attemptId,
      failure.error,
      failure.rejectedOutput === undefined ? null : JSON.stringify(failure.rejectedOutput),
      failure.usage ?? null,
      failure.costMicros ?? null,
      options.from ?? ['starting', 'running', 'unknown'],
      options.leaseExpiredOnly === true,
    ]);
    const n = rows[0]?.n;
    if (n === undefined) return { failed: false };
    await recordJobEvent(tx, {
      jobId: job.id,
      attemptId,
      type: 'attempt_failed',
      data: { attemptId, n, error: failure.error },
    });
    const { pause } = options;
    if (pause) {
      await tx.query(PAUSE_SQL, [pause.provider, pause.until, pause.status, attemptId]);
      await tx.query(UNCOUNT_SQL, [job.id]);
      job.throttled_count += 1;
    }
    const operation = operations.get(job.operation);
    if (!operation) return { failed: true, job: { state: job.state, version: job.version, retryAt: null } };
    const ended = {
      id: attemptId,
      n,
      how: 'failed' as const,
      error: failure.error,
      ...(pause ? { pausedUntil: pause.until } : {}),
    };
    const settled = await settleJob(tx, job, operation, ended, false, options.rotation);
    return { failed: true, job: settled };
  });
}
