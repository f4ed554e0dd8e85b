// The attempt engine as the library exposes it (onejob.attempts): the same operations
// the HTTP routes call, so the HTTP layer holds no logic of its own.

import { holdPrice } from '../../budgets/holdPrice.js';
import { abandonAttempt } from '../../jobs/abandonAttempt.js';
import { applyAfterCommit } from '../../jobs/afterCommit.js';
import { attemptView } from '../../jobs/attemptRow.js';
import { cancelJob } from '../../jobs/cancelJob.js';
import { providerForAttempt, requestedProvider } from '../../jobs/chooseProvider.js';
import { getJob } from '../../jobs/getJob.js';
import type { AttemptView, JobView } from '../../jobs/jobView.js';
import { startAttempt } from '../../jobs/startAttempt.js';
import { startWorker, WORKER_DEFAULTS, type Worker, type WorkerOptions } from '../../worker/worker.js';
import type { WorkerDeps } from '../engineDeps.js';

/**
 * `onejob.attempts`: the fallback button, giving up on an unknown attempt, cancelling, and the worker.
 */
export interface AttemptsHandle {
  /**
   * Starts an attempt now (the fallback button). The attempt waits, `starting`, for a
   * worker of any process to run it. Refuses while another attempt of an exclusive job
   * is live or unknown.
   */
  start(
    ownerId: string | null,
    jobId: string,
    options?: { provider?: string | undefined },
  ): Promise<AttemptView>;
  /** Gives up on a running or unknown attempt; its late result can never complete the job. */
  abandon(ownerId: string | null, jobId: string, n: number, reason: string): Promise<JobView>;
  /** Cancels a job that has no outcome yet. */
  cancel(ownerId: string | null, jobId: string): Promise<JobView>;
  /** Runs a worker in this process (the `worker` role). */
  startWorker(options?: WorkerOptions): Worker;
}

/** What the attempts handle needs: the worker's dependencies, and close() to stop its workers. */
export type AttemptsDeps = WorkerDeps & { onClose(fn: () => Promise<void> | void): void };

export function createAttemptsHandle(deps: AttemptsDeps): AttemptsHandle {
  const workers = new Set<Worker>();
  return {
    async start(ownerId, jobId, options = {}) {
      const { attempt } = await startAttempt(deps.pool, deps.operations, {
        jobId,
        ownerId,
        origin: 'manual',
        provider: (job, operation) =>
          options.provider !== undefined
            ? requestedProvider(deps, operation, options.provider)
            : providerForAttempt(deps, operation, job.attempt_count + 1),
        leaseOwner: null,
        leaseMs: deps.config.worker?.leaseMs ?? WORKER_DEFAULTS.leaseMs,
        // Held now: the worker that takes it calls the provider without holding again.
        price: (provider, operation, input) => holdPrice(deps.config, operation, provider, input),
      });
      for (const w of workers) w.wake();
      // Wakes the relay (the attempt wrote events) and whoever watches the job.
      deps.wakeups.jobSettled(jobId);
      return attemptView(attempt);
    },
    async abandon(ownerId, jobId, n, reason) {
      await abandonAttempt(deps.pool, deps.operations, { jobId, ownerId, n, reason });
      applyAfterCommit(deps, { jobId, outcome: 'abandoned' });
      return getJob(deps.pool, ownerId ?? (await ownerOfJob(deps, jobId)), jobId);
    },
    async cancel(ownerId, jobId) {
      await cancelJob(deps.pool, { jobId, ownerId });
      applyAfterCommit(deps, { jobId });
      return getJob(deps.pool, ownerId ?? (await ownerOfJob(deps, jobId)), jobId);
    },
    startWorker(options) {
      const worker = startWorker(deps, options);
      workers.add(worker);
      const stop = worker.stop;
      const tracked: Worker = {
        id: worker.id,
        wake: worker.wake,
        stop: async () => {
          workers.delete(tracked);
          await stop();
        },
      };
      deps.onClose(() => tracked.stop());
      return tracked;
    },
  };
}

async function ownerOfJob(deps: Pick<WorkerDeps, 'pool'>, jobId: string): Promise<string> {
  const { rows } = await deps.pool.query<{ owner_id: string }>(
    'SELECT owner_id FROM onejob.jobs WHERE id = $1',
    [jobId],
  );
  return rows[0]?.owner_id ?? '';
}
