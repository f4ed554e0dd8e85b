// What a provider is called with for one attempt, built in one place: the attempt's own
// call, its reconciliation's status question and verification's calls all carry the job's
// id as the idempotency key, so a provider that dedupes sees one intent per job.
import type { Operation } from '../operations/operationRegistry.js';
import type { ProviderCall } from './types.js';

export function attemptCall(
  job: { id: string; input: Record<string, unknown>; traceparent?: string | null | undefined },
  attempt: { id: string; n: number },
  operation: Operation,
  rest: Pick<ProviderCall, 'signal'> &
    Partial<Pick<ProviderCall, 'idempotencyKey' | 'traceparent' | 'temperature' | 'onText'>>,
): ProviderCall {
  return {
    jobId: job.id,
    attemptId: attempt.id,
    attempt: attempt.n,
    operation,
    input: job.input,
    idempotencyKey: job.id,
    traceparent: job.traceparent,
    ...rest,
  };
}
