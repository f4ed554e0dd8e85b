// A claim batch's holds, taken in one statement before any of its calls: each attempt
// then reads its own outcome instead of taking its hold alone (runAttempt.ts).
import { takeHolds } from '../budgets/takeHolds.js';
import type { ClaimedAttempt } from './claimJobs.js';
import type { WorkerContext } from './workerContext.js';

/** Starts the holds of `batch` and gives each claimed attempt the promise of their outcomes. */
export function holdClaimed(ctx: WorkerContext, batch: readonly ClaimedAttempt[]): void {
  const requests = batch.flatMap((c) => {
    const operation = ctx.deps.operations.get(c.job.operation);
    if (!operation || c.attempt.state !== 'running') return [];
    return [
      {
        attemptId: c.attempt.id,
        jobId: c.job.id,
        provider: c.attempt.provider,
        operation,
        input: c.job.input,
      },
    ];
  });
  if (requests.length === 0) return;
  const holds = takeHolds(ctx.deps.pool, ctx.deps.config, requests);
  // A failed batch (a deadlock with a completion, an outage) leaves each attempt to hold alone.
  holds.catch((error: unknown) => ctx.log.debug({ err: error }, 'batched holds failed; holding one by one'));
  for (const c of batch) c.holds = holds;
}
