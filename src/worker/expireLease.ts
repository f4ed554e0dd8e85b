// What becomes of an attempt whose worker stopped renewing its lease (the housekeeping
// sweep finds them with findExpiredLeases): the state machine decides by whether the
// provider may have been called.
import type { EngineDeps } from '../engine/engineDeps.js';
import { type AfterCommit, afterFailure, afterUnknown } from '../jobs/afterCommit.js';
import { failAttempt } from '../jobs/failAttempt.js';
import { markUnknown } from '../jobs/markUnknown.js';
import type { ExpiredLease } from './leases.js';

/**
 * An attempt whose worker stopped renewing its lease: one that never called its provider
 * failed definitely; one that did has an unknown outcome. Both only if the lease is still
 * expired under the job's lock, so a worker that renewed meanwhile is never overruled.
 */
export async function expireLease(
  deps: Pick<EngineDeps, 'pool' | 'operations'>,
  expired: ExpiredLease,
): Promise<AfterCommit> {
  const { pool, operations } = deps;
  if (expired.state === 'starting') {
    const failed = await failAttempt(
      pool,
      operations,
      expired.id,
      {
        error: {
          code: 'lease_expired_before_call',
          message: 'the worker stopped before calling the provider',
        },
      },
      { from: ['starting'], leaseExpiredOnly: true },
    );
    return afterFailure(expired.job_id, failed);
  }
  const marked = await markUnknown(
    pool,
    operations,
    expired.id,
    { code: 'lease_expired', message: 'the worker running this attempt stopped renewing its lease' },
    { leaseExpiredOnly: true },
  );
  return {
    ...afterUnknown(expired.job_id, marked),
    log: marked.marked
      ? {
          level: 'warn',
          message: 'lease expired: attempt outcome unknown',
          fields: { attemptId: expired.id, job: marked.job },
        }
      : undefined,
  };
}
