// Results that arrive within the same moment share one completion statement and one
// commit (completeWinners). An attempt that did not win there, or a batch whose statement
// failed, is completed on its own by completeAttempt, which locks the job and records a
// lost race or a discarded late result: batching changes how many commits there are,
// never what gets written. With a refill (the claim loop's), the statement also claims as
// many queued jobs as its attempts free (completeAndClaim.ts).
import type { Queryable } from '../db/createPool.js';
import { type Completion, completeAttempt } from '../jobs/completeAttempt.js';
import { completeWinners, type Offered } from '../jobs/completeWinners.js';
import type { OperationRegistry } from '../operations/operationRegistry.js';
import type { BatchDb } from './batchDb.js';
import type { ClaimedAttempt, ClaimRequest } from './claimJobs.js';
import { completeAndClaim } from './completeAndClaim.js';

export interface CompletionBatcher {
  /** Offers one attempt's result; resolves once it is committed, won or not. */
  offer(offered: Offered): Promise<Completion>;
}

interface Waiting {
  offered: Offered;
  resolve: (c: Completion) => void;
  reject: (e: unknown) => void;
}

export interface CompletionBatcherOptions {
  /**
   * Statements in flight at once; results arriving meanwhile wait for the next one. Default
   * 1 (group commit): each statement is a commit, a WAL flush and a round trip, and one
   * carrying every result that arrived meanwhile drained faster than several side by side
   * (docs/benchmarks.md, "Group commit in the worker").
   */
  maxInFlight?: number;
  /** Most results in one statement. */
  maxBatch?: number;
  onBatchFailed?: (error: unknown, size: number) => void;
  /** Claims made in the completion statement (the claim loop's, claimLoop.ts). */
  refill?: () => Refill | undefined;
}

/** How a completion batch claims the jobs that take its attempts' slots. */
export interface Refill {
  readonly operations: OperationRegistry;
  /** The claim to make with a batch of `size` results, or undefined for none. */
  request(size: number): ClaimRequest | undefined;
  /** What that claim took, handed over before the batch's attempts learn their outcome. */
  claimed(attempts: ClaimedAttempt[], requested: number): void;
}

/**
 * `db` completes attempts one by one; `batchDb` gives where the batch statement goes (the
 * worker's kept-plan connections when it has them, batchDb.ts).
 */
export function createCompletionBatcher(
  db: Queryable,
  batchDb: () => Promise<BatchDb>,
  options: CompletionBatcherOptions = {},
): CompletionBatcher {
  const maxInFlight = options.maxInFlight ?? 1;
  const maxBatch = options.maxBatch ?? 100;
  const queue: Waiting[] = [];
  let inFlight = 0;
  let scheduled = false;

  const one = (w: Waiting) => completeAttempt(db, w.offered.attempt.id, w.offered).then(w.resolve, w.reject);

  async function flush(batch: Waiting[]): Promise<void> {
    let winners: Map<string, number>;
    try {
      const target = await batchDb();
      const offered = batch.map((w) => w.offered);
      const refill = options.refill?.();
      const request = refill?.request(batch.length);
      if (refill && request) {
        const done = await completeAndClaim(target, refill.operations, offered, request);
        winners = done.winners;
        refill.claimed(done.claimed, request.limit);
      } else {
        winners = await completeWinners(target.db, offered, { keptPlans: target.keptPlans });
      }
    } catch (error) {
      options.onBatchFailed?.(error, batch.length);
      await Promise.all(batch.map(one));
      return;
    }
    const rest: Waiting[] = [];
    for (const w of batch) {
      const version = winners.get(w.offered.attempt.id);
      if (version === undefined) rest.push(w);
      else w.resolve({ kind: 'won', jobId: w.offered.attempt.job_id, version });
    }
    await Promise.all(rest.map(one));
  }

  function pump(): void {
    scheduled = false;
    while (inFlight < maxInFlight && queue.length > 0) {
      const batch = queue.splice(0, maxBatch);
      inFlight += 1;
      void flush(batch).finally(() => {
        inFlight -= 1;
        schedule();
      });
    }
  }

  function schedule(): void {
    if (scheduled || queue.length === 0 || inFlight >= maxInFlight) return;
    scheduled = true;
    // Results that arrive in the same turn of the event loop go out together.
    setImmediate(pump);
  }

  return {
    offer(offered) {
      return new Promise<Completion>((resolve, reject) => {
        queue.push({ offered, resolve, reject });
        schedule();
      });
    },
  };
}
