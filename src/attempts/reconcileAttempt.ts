// Resolving an attempt whose outcome is unknown, without guessing: ask the provider
// (statusUrl), or re-send the very same request where the provider dedupes on the
// Idempotency-Key. Anything else waits for a late result or for a person to abandon it.
import type { WorkerDeps } from '../engine/engineDeps.js';
import type { ProviderCall, ProviderOutcome, ProviderStatus } from '../providers/types.js';
import type { AttemptRow } from './attemptRow.js';
import { completeAttempt } from './completeAttempt.js';
import { failAttempt } from './failAttempt.js';

export type Reconciliation =
  | { resolved: true; how: 'status' | 'resend' | 'pure_timeout'; outcome: ProviderOutcome['kind'] }
  | { resolved: false; why: string };

export interface ReconcileJob {
  id: string;
  operation: string;
  input: Record<string, unknown>;
  traceparent: string | null;
}

/** Applies a definite answer about an unknown attempt through the same CAS as a live one. */
async function applyAnswer(
  onejob: WorkerDeps,
  attempt: AttemptRow,
  outcome: ProviderOutcome,
  how: 'status' | 'resend',
): Promise<Reconciliation> {
  if (outcome.kind === 'success') {
    const done = await completeAttempt(onejob.pool, attempt.id, outcome);
    onejob.metrics.attempts.inc({ outcome: done.kind === 'won' ? 'succeeded' : done.kind });
    if (done.kind === 'lost_race') onejob.metrics.attemptRaces.inc();
    return { resolved: true, how, outcome: 'success' };
  }
  if (outcome.kind === 'failure') {
    const failed = await failAttempt(onejob.pool, onejob.operations, attempt.id, outcome, {
      from: ['unknown'],
    });
    if (failed.failed) onejob.metrics.attempts.inc({ outcome: 'failed' });
    return { resolved: true, how, outcome: 'failure' };
  }
  return { resolved: false, why: `${how}: ${outcome.error.code}` };
}

export async function reconcileAttempt(
  onejob: WorkerDeps,
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
    if (failed.failed) onejob.metrics.attempts.inc({ outcome: 'failed' });
    return { resolved: true, how: 'pure_timeout', outcome: 'failure' };
  }
  const provider = onejob.providers.get(attempt.provider);
  if (!provider) return { resolved: false, why: `provider ${attempt.provider} is not available here` };
  const call: ProviderCall = {
    jobId: job.id,
    attemptId: attempt.id,
    attempt: attempt.n,
    operation,
    input: job.input,
    idempotencyKey: job.id,
    traceparent: job.traceparent,
    signal,
  };
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
