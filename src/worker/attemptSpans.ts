// Spans of an attempt and of its provider call, children of the job's stored
// traceparent (the creation span), so an attempt run later by a worker in another
// process joins the trace of the request that created the job.

import type { AfterCommit } from '../jobs/afterCommit.js';
import type { AttemptRow } from '../jobs/attemptRow.js';
import { type TraceSpan, tracing } from '../observability/tracing/tracing.js';
import type { Provider, ProviderOutcome } from '../providers/types.js';

export function startAttemptSpan(traceparent: string | null, attempt: AttemptRow): TraceSpan {
  return tracing().start('onejob.attempt', {
    parent: traceparent,
    attributes: {
      'onejob.job.id': attempt.job_id,
      'onejob.attempt.id': attempt.id,
      'onejob.attempt.n': attempt.n,
      'onejob.attempt.origin': attempt.origin,
      'onejob.provider': attempt.provider,
    },
  });
}

/** Records what the attempt ended with: its outcome as settled, cost, usage; lost_race and unknown as events. */
export function recordAttemptOutcome(
  span: TraceSpan,
  outcome: ProviderOutcome,
  effects: AfterCommit | undefined,
): void {
  const settled = effects?.outcome ?? 'unknown';
  span.set({
    'onejob.attempt.outcome': settled,
    'onejob.attempt.cost_micros': outcome.costMicros,
    'onejob.attempt.input_tokens': outcome.usage?.inputTokens,
    'onejob.attempt.output_tokens': outcome.usage?.outputTokens,
    'onejob.attempt.error_code': outcome.kind === 'success' ? undefined : outcome.error.code,
  });
  if (settled === 'lost_race') span.event('lost_race', { 'onejob.attempt.outcome': settled });
  // An ambiguous answer is marked even where a pure operation counts it as a failure; a
  // call aborted because a sibling won is a lost race, not an unknown outcome.
  if (settled === 'unknown' || (outcome.kind === 'unknown' && settled !== 'lost_race'))
    span.event('unknown', {
      'onejob.attempt.error_code': outcome.kind === 'success' ? undefined : outcome.error.code,
    });
  if (settled === 'failed') span.fail(outcome.kind === 'success' ? 'failed' : outcome.error.code);
}

/** The provider call as a client span; its traceparent is what the adapters send. */
export function startProviderSpan(parent: TraceSpan, provider: Provider, attempt: AttemptRow): TraceSpan {
  return tracing().start(`onejob.provider.call ${provider.name}`, {
    kind: 'client',
    parent: parent.traceparent,
    attributes: {
      'onejob.provider': provider.name,
      'onejob.provider.kind': provider.kind,
      'onejob.attempt.n': attempt.n,
    },
  });
}

export function endProviderSpan(span: TraceSpan, outcome: ProviderOutcome): void {
  span.set({ 'onejob.provider.outcome': outcome.kind });
  if (outcome.kind !== 'success') {
    span.set({ 'onejob.provider.error_code': outcome.error.code });
    span.fail(outcome.error.code);
  }
  span.end();
}
