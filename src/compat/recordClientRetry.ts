// The SDKs number their retries (`x-stainless-retry-count`). onejob never uses the number
// for identity (the key decides); it keeps it in the job's audit trail, so a job's events
// show how often a client came back for it.
import type { Queryable } from '../db/createPool.js';
import { recordJobEvent } from '../events/recordJobEvent.js';

export async function recordClientRetry(
  db: Queryable,
  jobId: string,
  retry: { retryCount: number; requestId: string; attemptId: string | null },
): Promise<void> {
  await recordJobEvent(db, {
    jobId,
    attemptId: retry.attemptId,
    type: 'client_retry',
    data: { retryCount: retry.retryCount, requestId: retry.requestId },
  });
}
