import type { Queryable } from '../db/createPool.js';
import { withTransaction } from '../db/withTransaction.js';
import { recordJobEvent } from '../events/recordJobEvent.js';
import type { OperationRegistry } from '../operations/operationRegistry.js';
import type { AttemptError, Usage } from '../providers/types.js';
import { lockJob } from './lockJob.js';
import { type SettleResult, settleJob } from './settleJob.js';
import { attemptStatesInto, sqlStates } from './stateMachine.js';

export interface UnknownOptions {
  /** Only if the lease expired (the worker died); the lease is then released for reconciliation. */
  leaseExpiredOnly?: boolean;
  usage?: Usage | undefined;
  costMicros?: number | undefined;
}

export type UnknownResult = { marked: true; job: SettleResult } | { marked: false };

const JOB_OF_SQL = 'SELECT job_id FROM onejob.attempts WHERE id = $1';

// A worker that times out keeps its lease through the grace period (it still listens for
// the late answer); a dead worker's lease is cleared so reconciliation can start at once.
const UNKNOWN_SQL = `
UPDATE onejob.attempts SET state = 'unknown', error = $2::jsonb,
  lease_expires_at = CASE WHEN $3::boolean THEN NULL ELSE lease_expires_at END,
  usage = coalesce($4::jsonb, usage), cost_micros = coalesce($5, cost_micros)
WHERE id = $1 AND state IN (${sqlStates(attemptStatesInto('unknown'))})
  AND (NOT $3::boolean OR lease_expires_at < now())
RETURNING n`;

/**
 * A timeout, a lost connection after sending, a 5xx, a dead worker: the provider may or
 * may not have acted. The attempt becomes unknown, never failed, and for an exclusive
 * job nothing new starts until it is resolved or abandoned.
 */
export async function markUnknown(
  db: Queryable,
  operations: OperationRegistry,
  attemptId: string,
  error: AttemptError,
  options: UnknownOptions = {},
): Promise<UnknownResult> {
  return withTransaction(db, async (tx) => {
    const { rows: of } = await tx.query<{ job_id: string }>(JOB_OF_SQL, [attemptId]);
    const job = of[0] ? await lockJob(tx, of[0].job_id) : undefined;
    if (!job) return { marked: false };
    const { rows } = await tx.query<{ n: number }>(UNKNOWN_SQL, [
      attemptId,
      error,
      options.leaseExpiredOnly === true,
      options.usage ?? null,
      options.costMicros ?? null,
    ]);
    const n = rows[0]?.n;
    if (n === undefined) return { marked: false };
    await recordJobEvent(tx, {
      jobId: job.id,
      attemptId,
      type: 'attempt_unknown',
      data: { attemptId, n, error },
    });
    const operation = operations.get(job.operation);
    if (!operation) return { marked: true, job: { state: job.state, version: job.version, retryAt: null } };
    const settled = await settleJob(tx, job, operation, { id: attemptId, n, how: 'unknown', error });
    return { marked: true, job: settled };
  });
}
