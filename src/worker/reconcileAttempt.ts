// Resolving an attempt whose outcome is unknown, without guessing: ask the provider
// (statusUrl), or re-send the very same request where the provider dedupes on the
// Idempotency-Key. Anything else waits for a late result or for a person to abandon it.
import type { EngineDeps } from '../engine/engineDeps.js';
import { type AfterCommit, afterCompletion, afterFailure } from '../jobs/afterCommit.js';
import type { AttemptRow } from '../jobs/attemptRow.js';
import { completeAttempt } from '../jobs/completeAttempt.js';
import { failAttempt } from '../jobs/failAttempt.js';
import { attemptCall } from '../providers/attemptCall.js';
import type { ProviderOutcome, ProviderStatus } from '../providers/types.js';

/**
 * What reconciliation found. A resolved one has committed its settlement; the caller
 * applies `afterCommit` (src/jobs/afterCommit.ts) to wake the job's waiters.
 */
export type Reconciliation =
  | {
      resolved: true;
      how: 'status' | 'resend' | 'pure_timeout';
      outcome: ProviderOutcome['kind'];
      afterCommit: AfterCommit;
    }
  | { resolved: false; why: string };

/** Reconciliation reads and writes the database and asks the attempt's provider. */
export type ReconcileDeps = Pick<EngineDeps, 'pool' | 'operations' | 'providers'>;

export interface ReconcileJob {
  id: string;
  operation: string;
  input: Record<string, unknown>;
  traceparent: string | null;
}

/** Applies a definite answer about an unknown attempt through the same CAS as a live one. */
async function applyAnswer(
  onejob: ReconcileDeps,
  attempt: AttemptRow,
  outcome: ProviderOutcome,
  how: 'status' | 'resend',
): Promise<Reconciliation> {
  if (outcome.kind === 'success') {
    const done = await completeAttempt(onejob.pool, attempt.id, outcome);
    return { resolved: true, how, outcome: 'success', afterCommit: afterCompletion(attempt.job_id, done) };
  }
  if (outcome.kind === 'failure') {
    const failed = await failAttempt(onejob.pool, onejob.operations, attempt.id, outcome, {
      from: ['unknown'],
    });
    return { resolved: true, how, outcome: 'failure', afterCommit: afterFailure(attempt.job_id, failed) };
  }
  return { resolved: false, why: `${how}: ${outcome.error.code}` };
}

export async function reconcileAttempt(
  onejob: ReconcileDeps,
  attempt: AttemptRow,
  job: ReconcileJob,
  signal: AbortSignal,
): Promise<Reconciliation> {
  const operation = onejob.operations.get(job.operation);
  if (!operation) return { resolved: false, why: `operation ${job.operation} is not configured here` };
  if (operation.effect === 'pure') {
    // Nobody is listening for this call any more and it has no side effect to wait for.
    const failed = await failAttempt(
      onejob.pool,
      onejob.operations,
      attempt.id,
      { error: { code: 'no_answer', message: 'no answer arrived before the grace period ended' } },
      { from: ['unknown'] },
    );
    return {
      resolved: true,
      how: 'pure_timeout',
      outcome: 'failure',
      afterCommit: afterFailure(attempt.job_id, failed),
    };
  }
  const provider = onejob.providers.get(attempt.provider);
  if (!provider) return { resolved: false, why: `provider ${attempt.provider} is not available here` };
  const call = attemptCall(job, attempt, operation, { signal });
  if (provider.status) {
    let status: ProviderStatus;
    try {
      status = await provider.status(call);
    } catch (error) {
      return { resolved: false, why: `status: ${(error as Error).message}` };
    }
    if (status.kind !== 'not_found') return applyAnswer(onejob, attempt, status, 'status');
    if (!provider.idempotent) {
      // The provider says the request never arrived: a definite failure, safe to retry.
      return applyAnswer(
        onejob,
        attempt,
        {
          kind: 'failure',
          error: { code: 'not_found_at_provider', message: 'the provider has no request with this key' },
        },
        'status',
      );
    }
  }
  if (provider.idempotent) {
    let outcome: ProviderOutcome;
    try {
      outcome = await provider.call(call);
    } catch (error) {
      return { resolved: false, why: `resend: ${(error as Error).message}` };
    }
    return applyAnswer(onejob, attempt, outcome, 'resend');
  }
  return {
    resolved: false,
    why: 'the provider has no statusUrl and is not idempotent: abandon the attempt to move on',
  };
}
