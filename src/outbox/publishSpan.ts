// A producer span per event the relay publishes, child of the traceparent the event
// carries (the work that caused it), so a job's trace shows its events leaving.
import { type TraceSpan, tracing } from '../observability/tracing/tracing.js';
import type { ClaimedDelivery } from './claimOutboxBatch.js';

export function startPublishSpan(publisher: string, delivery: ClaimedDelivery): TraceSpan {
  const traces = tracing();
  // Reading `event` parses the stored JSON: only worth it while traces are exported.
  if (!traces.enabled) return traces.start('onejob.outbox.publish');
  return traces.start(`onejob.outbox.publish ${delivery.type}`, {
    kind: 'producer',
    parent: delivery.event.traceparent,
    attributes: {
      'onejob.publisher': publisher,
      'onejob.event.id': delivery.id,
      'onejob.event.type': delivery.type,
      'onejob.event.subject': delivery.subject,
      'onejob.delivery.attempt': delivery.attempts + 1,
    },
  });
}

export function endPublishSpan(span: TraceSpan, duplicate: boolean | undefined, error?: unknown): void {
  if (error !== undefined) span.fail(error instanceof Error ? error.message : String(error));
  else span.set({ 'onejob.event.duplicate': duplicate === true });
  span.end();
}
