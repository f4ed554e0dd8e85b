// The span of a job's creation, child of the request's traceparent. The job row stores
// this span's traceparent, so the attempts a worker runs later, in any process, are its
// children in the same trace.
import { type TraceSpan, tracing } from '../observability/tracing/tracing.js';
import type { CreateJobRequest, CreateJobResult } from './createJob.js';

export function startJobSpan(req: CreateJobRequest): TraceSpan {
  return tracing().start('onejob.job.create', {
    parent: req.traceparent,
    attributes: { 'onejob.operation': req.operation, 'onejob.owner_id': req.ownerId },
  });
}

export function endJobSpan(span: TraceSpan, result: CreateJobResult | undefined, error?: unknown): void {
  if (result) {
    span.set({ 'onejob.job.id': result.job.id, 'onejob.job.replayed': result.replayed });
  } else {
    span.fail(error instanceof Error ? error.message : String(error));
  }
  span.end();
}
