// The worker role: claims jobs, runs one provider call per attempt under a lease,
// turns deadlines into unknown outcomes, hedges pure operations, sweeps the leases of
// dead workers and reconciles unknown attempts. Every decision is a database write
// made by the functions next to this file; the worker only sequences them.
import { hostname } from 'node:os';
import { v7 as uuidv7 } from 'uuid';
import type { Onejob } from '../createOnejob.js';
import { isOnejobError } from '../errors/OnejobError.js';
import { failpoint } from '../failpoints/failpoints.js';
import type { Operation } from '../operations/operationRegistry.js';
import type { ProviderOutcome } from '../providers/types.js';
import type { AttemptRow } from './attemptRow.js';
import { hedgeProvider, providerRotation } from './chooseProvider.js';
import { type ClaimedAttempt, claimQueuedJobs, claimUnownedAttempt } from './claimJobs.js';
import { completeAttempt } from './completeAttempt.js';
import { createCompletionBatcher } from './completionBatcher.js';
import { failAttempt } from './failAttempt.js';
import { claimUnknownAttempt, findExpiredLeases, markRunning, releaseLease, renewLeases } from './leases.js';
import { markUnknown } from './markUnknown.js';
import { type ReconcileJob, reconcileAttempt } from './reconcileAttempt.js';
import { startAttempt } from './startAttempt.js';

/**
 * Options of the worker role (`start({ worker })`); the config's `worker` section sets the same defaults.
 */
export interface WorkerOptions {
  /** Attempts run at once by this worker. */
  concurrency?: number;
  /** How long an attempt's lease lasts without renewal; a dead worker's attempts resolve after it. */
  leaseMs?: number;
  /** Idle poll interval for new work. */
  pollMs?: number;
  /** How long the worker keeps listening for a late answer after an attempt's deadline. */
  graceMs?: number;
  /** How long stop() lets running attempts finish before aborting their calls. */
  drainMs?: number;
}

export const WORKER_DEFAULTS = {
  concurrency: 10,
  leaseMs: 15_000,
  pollMs: 200,
  graceMs: 30_000,
  drainMs: 5_000,
};

export interface Worker {
  readonly id: string;
  /** Look for work now instead of at the next poll (an attempt was just started through the API). */
  wake(): void;
  stop(): Promise<void>;
}

const JOB_SQL = 'SELECT id, operation, input, traceparent FROM onejob.jobs WHERE id = $1';

/** How long the worker's claims reuse the failover gate's answer for an operation. */
const ROTATION_CACHE_MS = 1_000;
/** How often the onejob_jobs_unknown gauge is recounted (a count over the jobs table). */
const UNKNOWN_GAUGE_MS = 10_000;

export function startWorker(onejob: Onejob, options: WorkerOptions = {}): Worker {
  const configured = onejob.config.worker ?? {};
  const concurrency = options.concurrency ?? configured.concurrency ?? WORKER_DEFAULTS.concurrency;
  const leaseMs = options.leaseMs ?? configured.leaseMs ?? WORKER_DEFAULTS.leaseMs;
  const pollMs = options.pollMs ?? configured.pollMs ?? WORKER_DEFAULTS.pollMs;
  const graceMs = options.graceMs ?? (configured.graceMs as number | undefined) ?? WORKER_DEFAULTS.graceMs;
  const drainMs = options.drainMs ?? WORKER_DEFAULTS.drainMs;
  const id = `${hostname()}:${process.pid}:${uuidv7().slice(-12)}`;
  const { pool, operations, providers, metrics } = onejob;
  const log = onejob.logger.child({ worker: id });

  let running = true;
  /** Housekeeping (lease renewal above all) goes on until the last attempt has drained. */
  let housekeeping = true;
  let busy = 0;
  /** Attempts whose lease this worker renews (running calls, grace periods, reconciliations). */
  const held = new Set<string>();
  const calls = new Map<string, AbortController>();
  /** Job of each open call, so a winner can abort its siblings (hedges of a pure operation). */
  const callJobs = new Map<string, string>();
  /** Calls aborted because a sibling won: their ending is a lost race, not a failure. */
  const outraced = new Set<string>();
  const tasks = new Set<Promise<void>>();
  let wakeUp: (() => void) | undefined;
  /** Set by wake(): an attempt was started through the API, look for unowned attempts. */
  let woken = true;
  let unknownCountedAt = 0;
  const completions = createCompletionBatcher(pool, {
    onBatchFailed: (error, size) =>
      log.debug({ err: error, size }, 'batched completion failed; completing one by one'),
  });

  const track = (p: Promise<void>) => {
    const t = p.catch((error) => log.error({ err: error }, 'worker task failed'));
    tasks.add(t);
    void t.finally(() => tasks.delete(t));
  };
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wakeUp = undefined;
        resolve();
      }
      wakeUp = done;
    });

  async function apply(
    attempt: AttemptRow,
    operation: Operation,
    outcome: ProviderOutcome,
    timedOut: boolean,
    traceparent: string | null,
  ): Promise<void> {
    const tag = { jobId: attempt.job_id, attemptId: attempt.id, n: attempt.n, provider: attempt.provider };
    if (outraced.delete(attempt.id) && outcome.kind !== 'success') {
      // Aborted because a sibling already won: offer an empty result, which the
      // compare-and-swap refuses (the job has its winner), so the attempt is recorded as
      // lost_race with what it cost until the abort.
      const done = await completeAttempt(pool, attempt.id, {
        result: null,
        usage: outcome.usage,
        costMicros: outcome.costMicros,
      });
      onejob.wakeups.jobSettled(attempt.job_id);
      metrics.attempts.inc({ outcome: done.kind });
      if (done.kind === 'lost_race') metrics.attemptRaces.inc();
      log.info({ ...tag, completion: done.kind }, 'attempt aborted: a sibling attempt won');
      return;
    }
    if (outcome.kind === 'success') {
      const done = await completions.offer({ attempt, traceparent, ...outcome });
      onejob.wakeups.jobSettled(attempt.job_id);
      if (done.kind === 'won' && operation.effect === 'pure' && operation.abortLosers) abortSiblings(attempt);
      metrics.attempts.inc({ outcome: done.kind === 'won' ? 'succeeded' : done.kind });
      if (done.kind === 'lost_race') metrics.attemptRaces.inc();
      log.info(
        { ...tag, completion: done.kind },
        done.kind === 'won' ? 'attempt won' : `attempt result discarded (${done.kind})`,
      );
      return;
    }
    // For a pure operation an ambiguous answer is as good as a failure: retrying has no side effect.
    if (outcome.kind === 'failure' || operation.effect === 'pure') {
      const failed = await failAttempt(pool, operations, attempt.id, outcome, {
        from: ['running', 'unknown'],
      });
      onejob.wakeups.jobSettled(attempt.job_id);
      if (failed.failed) metrics.attempts.inc({ outcome: 'failed' });
      log.info(
        { ...tag, error: outcome.error, job: failed.failed ? failed.job : undefined },
        'attempt failed',
      );
      return;
    }
    if (!timedOut) {
      const marked = await markUnknown(pool, operations, attempt.id, outcome.error, {
        usage: outcome.usage,
        costMicros: outcome.costMicros,
      });
      onejob.wakeups.jobSettled(attempt.job_id);
      if (marked.marked) metrics.attempts.inc({ outcome: 'unknown' });
      log.warn({ ...tag, error: outcome.error }, 'attempt outcome unknown');
    }
    await releaseLease(pool, attempt.id, id);
  }

  /** Once an attempt has won, the siblings still waiting on a provider only cost money: abort them. */
  function abortSiblings(winner: AttemptRow): void {
    for (const [attemptId, jobId] of callJobs) {
      if (jobId !== winner.job_id || attemptId === winner.id) continue;
      outraced.add(attemptId);
      calls.get(attemptId)?.abort(new Error(`attempt ${winner.n} of this job won`));
    }
  }

  async function hedge(attempt: AttemptRow, operation: Operation, job: ClaimedAttempt['job']): Promise<void> {
    if (!running) return;
    const next = await hedgeProvider(onejob, operation, attempt.provider);
    if (!next) return;
    try {
      const started = await startAttempt(pool, operations, {
        jobId: attempt.job_id,
        origin: 'hedge',
        provider: next,
        leaseOwner: id,
        leaseMs,
      });
      log.info({ jobId: attempt.job_id, n: started.attempt.n, provider: next }, 'hedged attempt started');
      await run({ attempt: started.attempt, job, waitedSeconds: 0 });
    } catch (error) {
      // The job finished, or has no attempts left: nothing to hedge.
      if (!isOnejobError(error)) throw error;
    }
  }

  /**
   * Runs one claimed attempt. An attempt claimed from the queue is already running (the
   * claim committed that); one still starting (hedges, attempts started through the API)
   * is moved to running here, committed before its call.
   */
  async function run(claimed: ClaimedAttempt): Promise<void> {
    const { attempt: claimedAttempt, job } = claimed;
    held.add(claimedAttempt.id);
    try {
      await failpoint('worker.after_claim');
      const operation = operations.get(job.operation);
      const provider = providers.get(claimedAttempt.provider);
      if (!operation || !provider) {
        const message = !operation
          ? `operation ${job.operation} is not configured`
          : `provider ${claimedAttempt.provider} is not available`;
        // Not called, by this process, whatever its state says.
        await failAttempt(
          pool,
          operations,
          claimedAttempt.id,
          { error: { code: 'provider_unavailable', message } },
          { from: [claimedAttempt.state === 'running' ? 'running' : 'starting'] },
        );
        return;
      }
      const attempt =
        claimedAttempt.state === 'running'
          ? claimedAttempt
          : await markRunning(pool, claimedAttempt.id, id, operation.attemptTimeoutMs, leaseMs);
      if (!attempt) {
        // Abandoned, cancelled or won by a sibling before the call: it provably never left.
        await failAttempt(
          pool,
          operations,
          claimedAttempt.id,
          {
            error: { code: 'not_called', message: 'the job changed before this attempt called its provider' },
          },
          { from: ['starting'] },
        );
        return;
      }
      const controller = new AbortController();
      calls.set(attempt.id, controller);
      callJobs.set(attempt.id, attempt.job_id);
      let timedOut: Promise<void> | undefined;
      const deadline = setTimeout(() => {
        timedOut = markUnknown(pool, operations, attempt.id, {
          code: 'timeout',
          message: `no answer within attemptTimeoutMs (${operation.attemptTimeoutMs} ms)`,
        }).then((r) => {
          onejob.wakeups.jobSettled(attempt.job_id);
          if (r.marked) metrics.attempts.inc({ outcome: 'unknown' });
          log.warn(
            { jobId: attempt.job_id, n: attempt.n, job: r.marked ? r.job : undefined },
            'attempt timed out: outcome unknown',
          );
        });
      }, operation.attemptTimeoutMs);
      // After the deadline the call stays open for the grace period: a late answer still counts.
      const hardStop = setTimeout(
        () => controller.abort(new Error('grace period over')),
        operation.attemptTimeoutMs + graceMs,
      );
      const hedgeTimer =
        operation.effect === 'pure' && operation.hedgeAfterMs !== undefined && attempt.origin !== 'hedge'
          ? setTimeout(() => track(hedge(attempt, operation, job)), operation.hedgeAfterMs)
          : undefined;
      let outcome: ProviderOutcome;
      try {
        outcome = await provider.call({
          jobId: job.id,
          attemptId: attempt.id,
          attempt: attempt.n,
          operation,
          input: job.input,
          idempotencyKey: job.id,
          traceparent: job.traceparent,
          signal: controller.signal,
        });
      } catch (error) {
        outcome = { kind: 'unknown', error: { code: 'provider_error', message: (error as Error).message } };
      } finally {
        clearTimeout(deadline);
        clearTimeout(hardStop);
        clearTimeout(hedgeTimer);
        calls.delete(attempt.id);
        callJobs.delete(attempt.id);
      }
      await failpoint('worker.after_provider_response');
      if (timedOut) await timedOut.catch((error) => log.error({ err: error }, 'marking a timeout failed'));
      await apply(attempt, operation, outcome, timedOut !== undefined, job.traceparent);
    } finally {
      held.delete(claimedAttempt.id);
    }
  }

  async function reconcile(attempt: AttemptRow): Promise<void> {
    held.add(attempt.id);
    const controller = new AbortController();
    calls.set(attempt.id, controller);
    try {
      const { rows } = await pool.query<ReconcileJob>(JOB_SQL, [attempt.job_id]);
      if (!rows[0]) return;
      const result = await reconcileAttempt(onejob, attempt, rows[0], controller.signal);
      log.info({ jobId: attempt.job_id, n: attempt.n, result }, 'reconciliation');
    } finally {
      calls.delete(attempt.id);
      held.delete(attempt.id);
    }
  }

  function launch(claimed: ClaimedAttempt): void {
    track(
      run(claimed).finally(() => {
        busy -= 1;
        wakeUp?.();
      }),
    );
  }

  async function claimLoop(): Promise<void> {
    // The failover gate reads the verifications table; an idle worker polls often, so its
    // answer is reused for a second (a backup verified or refused just now is seen by
    // this worker's claims at most a second later; the API's fallback button asks anew).
    const rotations = new Map<string, { at: number; providers: Promise<string[]> }>();
    const rotation = (operation: Operation) => {
      if (operation.providers.length < 2) return Promise.resolve([...operation.providers]);
      const cached = rotations.get(operation.name);
      if (cached && Date.now() - cached.at < ROTATION_CACHE_MS) return cached.providers;
      const providers = providerRotation(onejob, operation);
      rotations.set(operation.name, { at: Date.now(), providers });
      providers.catch(() => rotations.delete(operation.name));
      return providers;
    };
    let unownedCheckedAt = 0;
    while (running) {
      try {
        while (running && busy < concurrency) {
          // Attempts started through the API: when wake() says one was started here, and at
          // least once per poll interval for those started by other processes.
          if (woken || Date.now() - unownedCheckedAt >= pollMs) {
            woken = false;
            unownedCheckedAt = Date.now();
            while (running && busy < concurrency) {
              const unowned = await claimUnownedAttempt(pool, {
                id,
                leaseMs,
                operations: operations.names(),
              });
              if (!unowned) break;
              metrics.claimLatency.observe(unowned.waitedSeconds);
              busy += 1;
              launch(unowned);
            }
          }
          const free = concurrency - busy;
          if (!running || free <= 0) break;
          // Every free slot in one statement: the claim loop's pace no longer bounds intake.
          const batch = await claimQueuedJobs(pool, operations, { id, leaseMs, limit: free, rotation });
          if (batch.length === 0) break;
          busy += batch.length;
          for (const claimed of batch) {
            metrics.claimLatency.observe(claimed.waitedSeconds);
            launch(claimed);
          }
          if (batch.length < free) break;
        }
      } catch (error) {
        log.warn({ err: error }, 'claiming failed; retrying after the poll interval');
      }
      if (running) await pause(pollMs);
    }
  }

  async function heartbeat(): Promise<void> {
    const ids = [...held];
    if (ids.length === 0) return;
    const kept = await renewLeases(pool, ids, id, leaseMs);
    for (const attemptId of ids) {
      if (!kept.has(attemptId))
        log.debug({ attemptId }, 'attempt resolved elsewhere; its late answer will be recorded only');
    }
  }

  async function maintain(): Promise<void> {
    for (const expired of await findExpiredLeases(pool)) {
      if (expired.state === 'starting') {
        const r = await failAttempt(
          pool,
          operations,
          expired.id,
          {
            error: {
              code: 'lease_expired_before_call',
              message: 'the worker stopped before calling the provider',
            },
          },
          { from: ['starting'], leaseExpiredOnly: true },
        );
        if (r.failed) metrics.attempts.inc({ outcome: 'failed' });
      } else {
        const r = await markUnknown(
          pool,
          operations,
          expired.id,
          { code: 'lease_expired', message: 'the worker running this attempt stopped renewing its lease' },
          { leaseExpiredOnly: true },
        );
        if (r.marked) {
          metrics.attempts.inc({ outcome: 'unknown' });
          log.warn({ attemptId: expired.id, job: r.job }, 'lease expired: attempt outcome unknown');
        }
      }
    }
    for (let i = 0; i < 5 && running; i++) {
      const unknown = await claimUnknownAttempt(pool, id, leaseMs);
      if (!unknown) break;
      // A late heartbeat can let our own reconciliation's lease lapse; never run it twice.
      if (!held.has(unknown.id)) track(reconcile(unknown));
    }
    // A count over the jobs table: too dear for every tick of every worker.
    if (Date.now() - unknownCountedAt >= UNKNOWN_GAUGE_MS) {
      unknownCountedAt = Date.now();
      const { rows } = await pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM onejob.jobs WHERE state = 'unknown'`,
      );
      metrics.jobsUnknown.set(rows[0]?.n ?? 0);
    }
  }

  const timers = new Set<NodeJS.Timeout>();
  const every = (ms: number, fn: () => Promise<void>) => {
    const tick = async () => {
      try {
        await fn();
      } catch (error) {
        log.warn({ err: error }, 'worker housekeeping failed');
      }
      if (housekeeping) schedule();
    };
    const schedule = () => {
      const t = setTimeout(() => {
        timers.delete(t);
        void tick();
      }, ms);
      timers.add(t);
    };
    schedule();
  };

  const loop = claimLoop();
  every(Math.max(20, Math.floor(leaseMs / 3)), heartbeat);
  every(Math.max(20, Math.min(1_000, Math.floor(leaseMs / 2))), maintain);
  log.info({ concurrency, leaseMs, pollMs, graceMs }, 'worker started');

  let stopping: Promise<void> | undefined;
  return {
    id,
    wake: () => {
      woken = true;
      wakeUp?.();
    },
    stop() {
      stopping ??= (async () => {
        running = false;
        wakeUp?.();
        await loop;
        const drained = Promise.all([...tasks]);
        const timer = setTimeout(() => {
          for (const c of calls.values()) c.abort(new Error('worker stopping'));
        }, drainMs);
        await drained;
        // Tasks started while draining (hedges) settle too.
        while (tasks.size > 0) await Promise.all([...tasks]);
        clearTimeout(timer);
        housekeeping = false;
        for (const t of timers) clearTimeout(t);
        timers.clear();
        log.info('worker stopped');
      })();
      return stopping;
    },
  };
}
