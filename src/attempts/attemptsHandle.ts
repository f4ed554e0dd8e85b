// The attempt engine as the library exposes it (onejob.attempts): the same operations
// the HTTP routes call, so the HTTP layer holds no logic of its own.
import type { WorkerDeps } from '../engine/engineDeps.js';
import { getJob } from '../jobs/getJob.js';
import type { AttemptView, JobView } from '../jobs/jobView.js';
import { abandonAttempt } from './abandonAttempt.js';
import { applyAfterCommit } from './afterCommit.js';
import { attemptView } from './attemptRow.js';
import { cancelJob } from './cancelJob.js';
import { providerForAttempt, requestedProvider } from './chooseProvider.js';
import { startAttempt } from './startAttempt.js';
import { startWorker, WORKER_DEFAULTS, type Worker, type WorkerOptions } from './worker.js';

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

/** What the attempts handle needs of the engine: the worker's dependencies, and close() to stop its workers. */
export type AttemptsDeps = WorkerDeps & { onClose(fn: () => Promise<void> | void): void };

export function createAttemptsHandle(getOnejob: () => AttemptsDeps): AttemptsHandle {
  const workers = new Set<Worker>();
  return {
    async start(ownerId, jobId, options = {}) {
      const onejob = getOnejob();
      const { attempt } = await startAttempt(onejob.pool, onejob.operations, {
        jobId,
        ownerId,
        origin: 'manual',
        provider: (job, operation) =>
          options.provider !== undefined
            ? requestedProvider(onejob, operation, options.provider)
            : providerForAttempt(onejob, operation, job.attempt_count + 1),
        leaseOwner: null,
        leaseMs: onejob.config.worker?.leaseMs ?? WORKER_DEFAULTS.leaseMs,
      });
      for (const w of workers) w.wake();
      // Wakes the relay (the attempt wrote events) and whoever watches the job.
      onejob.wakeups.jobSettled(jobId);
      return attemptView(attempt);
    },
    async abandon(ownerId, jobId, n, reason) {
      const onejob = getOnejob();
      await abandonAttempt(onejob.pool, onejob.operations, { jobId, ownerId, n, reason });
      applyAfterCommit(onejob, { jobId, outcome: 'abandoned' });
      return getJob(onejob.pool, ownerId ?? (await ownerOfJob(onejob, jobId)), jobId);
    },
    async cancel(ownerId, jobId) {
      const onejob = getOnejob();
      await cancelJob(onejob.pool, { jobId, ownerId });
      applyAfterCommit(onejob, { jobId });
      return getJob(onejob.pool, ownerId ?? (await ownerOfJob(onejob, jobId)), jobId);
    },
    startWorker(options) {
      const onejob = getOnejob();
      const worker = startWorker(onejob, options);
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
      onejob.onClose(() => tracked.stop());
      return tracked;
    },
  };
}

async function ownerOfJob(onejob: Pick<WorkerDeps, 'pool'>, jobId: string): Promise<string> {
  const { rows } = await onejob.pool.query<{ owner_id: string }>(
    'SELECT owner_id FROM onejob.jobs WHERE id = $1',
    [jobId],
  );
  return rows[0]?.owner_id ?? '';
}
