// The worker's housekeeping, on timers beside the claim loop: renewing the leases of the
// attempts it holds, turning other workers' expired leases into definite failures or
// unknown outcomes, reconciling unknown attempts, and recounting the unknown-jobs gauge.
import { DatabaseOutage } from '../db/databaseOutage.js';
import type { AttemptRow } from '../jobs/attemptRow.js';
import { periodicTask } from '../time/periodicTask.js';
import { expireLease } from './expireLease.js';
import { claimUnknownAttempt, findExpiredLeases, renewLeases } from './leases.js';
import { type ReconcileJob, reconcileAttempt } from './reconcileAttempt.js';
import { settled, type WorkerContext } from './workerContext.js';

const JOB_SQL = 'SELECT id, operation, input, traceparent FROM onejob.jobs WHERE id = $1';
export const UNKNOWN_JOBS_SQL = `SELECT count(*)::int AS n FROM onejob.jobs WHERE lane = 'unknown'`;

// One row per provider that was ever paused: a small table.
const PAUSES_SQL = `SELECT provider, greatest(0, extract(epoch FROM until - now()))::float8 AS seconds
FROM onejob.provider_pauses`;

/** The pause gauge, per provider, from the database: every worker's metrics show every pause. */
async function gaugePauses(ctx: WorkerContext): Promise<void> {
  const { rows } = await ctx.deps.pool.query<{ provider: string; seconds: number }>(PAUSES_SQL);
  for (const { provider, seconds } of rows) ctx.deps.metrics.providerPausedSeconds.set({ provider }, seconds);
}

/** How often the onejob_jobs_unknown gauge is recounted (from the partial index jobs_unknown). */
const UNKNOWN_GAUGE_MS = 10_000;

/** What housekeeping keeps to itself. */
interface Housekeeper {
  readonly ctx: WorkerContext;
  /** When the unknown-jobs gauge was last recounted. */
  unknownCountedAt: number;
}

/** The running housekeeping: `stop` ends its timers and waits for a tick in progress. */
export interface Housekeeping {
  stop(): Promise<void>;
}

/** Starts the housekeeping timers. */
export function startHousekeeping(ctx: WorkerContext): Housekeeping {
  const { leaseMs } = ctx.settings;
  // Housekeeping (lease renewal above all) goes on until stop(), after the last attempt drained.
  const own: Housekeeper = { ctx, unknownCountedAt: 0 };
  const outage = new DatabaseOutage(ctx.log, 'worker housekeeping (lease renewal, expiry, reconciliation)');
  const every = (ms: number, fn: (h: Housekeeper) => Promise<void>) => {
    const task = periodicTask(ms, async () => {
      try {
        await fn(own);
        outage.succeeded();
      } catch (error) {
        outage.failed(error, 'worker housekeeping failed', 0);
      }
    });
    task.start();
    return task;
  };
  const tasks = [
    every(Math.max(20, Math.floor(leaseMs / 3)), heartbeat),
    every(Math.max(20, Math.min(1_000, Math.floor(leaseMs / 2))), maintain),
  ];
  return {
    async stop() {
      await Promise.all(tasks.map((task) => task.stop()));
    },
  };
}

async function heartbeat({ ctx }: Housekeeper): Promise<void> {
  const ids = ctx.held.ids();
  if (ids.length === 0) return;
  const kept = await renewLeases(ctx.deps.pool, ids, ctx.id, ctx.settings.leaseMs);
  for (const attemptId of ids) {
    if (!kept.has(attemptId))
      ctx.log.debug({ attemptId }, 'attempt resolved elsewhere; its late answer will be recorded only');
  }
}

async function maintain(h: Housekeeper): Promise<void> {
  const { ctx } = h;
  const { pool } = ctx.deps;
  for (const expired of await findExpiredLeases(pool)) settled(ctx, await expireLease(ctx.deps, expired));
  for (let i = 0; i < 5 && ctx.running(); i++) {
    const unknown = await claimUnknownAttempt(pool, ctx.id, ctx.settings.leaseMs);
    if (!unknown) break;
    // A late heartbeat can let our own reconciliation's lease lapse; never run it twice.
    if (!ctx.held.holds(unknown.id)) ctx.tasks.track(reconcile(ctx, unknown));
  }
  // A count over the jobs table: too dear for every tick of every worker.
  if (Date.now() - h.unknownCountedAt >= UNKNOWN_GAUGE_MS) {
    h.unknownCountedAt = Date.now();
    const { rows } = await pool.query<{ n: number }>(UNKNOWN_JOBS_SQL);
    ctx.deps.metrics.jobsUnknown.set(rows[0]?.n ?? 0);
    await gaugePauses(ctx);
  }
}

async function reconcile(ctx: WorkerContext, attempt: AttemptRow): Promise<void> {
  ctx.held.hold(attempt.id);
  const controller = new AbortController();
  ctx.held.openCall(attempt.id, controller);
  try {
    const { rows } = await ctx.deps.pool.query<ReconcileJob>(JOB_SQL, [attempt.job_id]);
    if (!rows[0]) return;
    const result = await reconcileAttempt(ctx.deps, attempt, rows[0], controller.signal);
    const { afterCommit, ...logged } = result.resolved ? result : { ...result, afterCommit: undefined };
    if (afterCommit) settled(ctx, afterCommit);
    ctx.log.info({ jobId: attempt.job_id, n: attempt.n, result: logged }, 'reconciliation');
  } finally {
    ctx.held.closeCall(attempt.id);
    ctx.held.release(attempt.id);
  }
}
