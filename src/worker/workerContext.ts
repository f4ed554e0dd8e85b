// What the worker's parts share, and nothing they own: its name, dependencies, settings,
// logger and whether it is still running (read-only to them), the attempts whose leases
// it holds (heldAttempts.ts) and its background tasks. The claim loop (claimLoop.ts), the
// attempt runner (runAttempt.ts) and housekeeping (workerHousekeeping.ts) each keep their
// own state to themselves.
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { v7 as uuidv7 } from 'uuid';
import { isDatabaseUnavailable } from '../db/sqlstate.js';
import type { EffectDeps, WorkerDeps } from '../engine/engineDeps.js';
import { type AfterCommit, applyAfterCommit } from '../jobs/afterCommit.js';
import { type BatchDb, batchDbChooser } from './batchDb.js';
import { HeldAttempts } from './heldAttempts.js';

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
  /**
   * Live attempts one owner may have at once, across every worker process on the database;
   * 0: no cap (docs/attempts.md, "Who runs next").
   */
  maxSlotsPerOwner?: number;
}

export const WORKER_DEFAULTS = {
  concurrency: 10,
  leaseMs: 15_000,
  pollMs: 200,
  graceMs: 30_000,
  drainMs: 5_000,
  maxSlotsPerOwner: 0,
};

export type WorkerSettings = Required<WorkerOptions>;

/** Background tasks (attempts, hedges, reconciliations) that stop() waits for. */
export class WorkerTasks {
  private readonly running = new Set<Promise<void>>();
  constructor(private readonly log: Logger) {}

  /** Runs `p` in the background; stop() waits for it. */
  track(p: Promise<void>): void {
    const t = p.catch((error) => {
      if (!isDatabaseUnavailable(error)) return this.log.error({ err: error }, 'worker task failed');
      // A failover under a running attempt: nothing more is written for it from here. Once its
      // lease lapses, housekeeping fails it (never called) or marks it unknown and reconciles it.
      this.log.warn(
        { err: error },
        'attempt interrupted: database unavailable; settled after its lease lapses',
      );
    });
    this.running.add(t);
    void t.finally(() => this.running.delete(t));
  }

  /** Waits for every task, those started while waiting included. */
  async drain(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running]);
  }
}

export interface WorkerContext {
  readonly id: string;
  readonly deps: WorkerDeps;
  readonly settings: WorkerSettings;
  /** The engine's logger, naming this worker. */
  readonly log: Logger;
  /** False once stop() was called: no new claims, no new hedges, no new reconciliations. */
  running(): boolean;
  readonly held: HeldAttempts;
  readonly tasks: WorkerTasks;
  /** Where the claim and the completion batch go (batchDb.ts). */
  readonly batchDb: () => Promise<BatchDb>;
}

export function workerSettings(deps: WorkerDeps, options: WorkerOptions): WorkerSettings {
  const configured = deps.config.worker ?? {};
  return {
    concurrency: options.concurrency ?? configured.concurrency ?? WORKER_DEFAULTS.concurrency,
    leaseMs: options.leaseMs ?? configured.leaseMs ?? WORKER_DEFAULTS.leaseMs,
    pollMs: options.pollMs ?? configured.pollMs ?? WORKER_DEFAULTS.pollMs,
    graceMs: options.graceMs ?? configured.graceMs ?? WORKER_DEFAULTS.graceMs,
    drainMs: options.drainMs ?? WORKER_DEFAULTS.drainMs,
    maxSlotsPerOwner:
      options.maxSlotsPerOwner ?? configured.maxSlotsPerOwner ?? WORKER_DEFAULTS.maxSlotsPerOwner,
  };
}

export function createWorkerContext(
  deps: WorkerDeps,
  options: WorkerOptions,
  running: () => boolean,
): WorkerContext {
  const id = `${hostname()}:${process.pid}:${uuidv7().slice(-12)}`;
  const log = deps.logger.child({ worker: id });
  return {
    id,
    deps,
    settings: workerSettings(deps, options),
    log,
    running,
    held: new HeldAttempts(),
    tasks: new WorkerTasks(log),
    batchDb: batchDbChooser(deps, log),
  };
}

/** The worker's settlements go through the one post-commit seam, logged under its name. */
export function settled(ctx: WorkerContext, effects: AfterCommit): void {
  const deps: EffectDeps = { wakeups: ctx.deps.wakeups, metrics: ctx.deps.metrics, logger: ctx.log };
  applyAfterCommit(deps, effects);
}
