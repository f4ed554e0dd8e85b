// The worker's state, explicit: the claim loop (claimLoop.ts), the attempt runner
// (runAttempt.ts) and housekeeping (workerHousekeeping.ts) all read and write this one
// object, and nothing else is shared between them.
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { v7 as uuidv7 } from 'uuid';
import { isDatabaseUnavailable } from '../db/sqlstate.js';
import type { EffectDeps, WorkerDeps } from '../engine/engineDeps.js';
import { type AfterCommit, applyAfterCommit } from './afterCommit.js';
import { type CompletionBatcher, createCompletionBatcher } from './completionBatcher.js';

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

export type WorkerSettings = Required<WorkerOptions>;

export interface WorkerState {
  readonly id: string;
  readonly deps: WorkerDeps;
  readonly settings: WorkerSettings;
  /** The engine's logger, naming this worker. */
  readonly log: Logger;
  readonly completions: CompletionBatcher;
  /** False once stop() was called: no new claims, no new hedges. */
  running: boolean;
  /** Housekeeping (lease renewal above all) goes on until the last attempt has drained. */
  housekeeping: boolean;
  /** Attempts claimed and not yet finished. */
  busy: number;
  /** Attempts whose lease this worker renews (running calls, grace periods, reconciliations). */
  readonly held: Set<string>;
  readonly calls: Map<string, AbortController>;
  /** Job of each open call, so a winner can abort its siblings (hedges of a pure operation). */
  readonly callJobs: Map<string, string>;
  /** Calls aborted because a sibling won: their ending is a lost race, not a failure. */
  readonly outraced: Set<string>;
  readonly tasks: Set<Promise<void>>;
  /** Ends the claim loop's current pause. */
  wakeUp: (() => void) | undefined;
  /** Set by wake(): an attempt was started through the API, look for unowned attempts. */
  woken: boolean;
  unknownCountedAt: number;
}

export function createWorkerState(deps: WorkerDeps, options: WorkerOptions): WorkerState {
  const configured = deps.config.worker ?? {};
  const settings: WorkerSettings = {
    concurrency: options.concurrency ?? configured.concurrency ?? WORKER_DEFAULTS.concurrency,
    leaseMs: options.leaseMs ?? configured.leaseMs ?? WORKER_DEFAULTS.leaseMs,
    pollMs: options.pollMs ?? configured.pollMs ?? WORKER_DEFAULTS.pollMs,
    graceMs: options.graceMs ?? configured.graceMs ?? WORKER_DEFAULTS.graceMs,
    drainMs: options.drainMs ?? WORKER_DEFAULTS.drainMs,
  };
  const id = `${hostname()}:${process.pid}:${uuidv7().slice(-12)}`;
  const log = deps.logger.child({ worker: id });
  return {
    id,
    deps,
    settings,
    log,
    completions: createCompletionBatcher(deps.pool, {
      onBatchFailed: (error, size) =>
        log.debug({ err: error, size }, 'batched completion failed; completing one by one'),
    }),
    running: true,
    housekeeping: true,
    busy: 0,
    held: new Set(),
    calls: new Map(),
    callJobs: new Map(),
    outraced: new Set(),
    tasks: new Set(),
    wakeUp: undefined,
    woken: true,
    unknownCountedAt: 0,
  };
}

/** Runs `p` in the background; stop() waits for it. */
export function track(state: WorkerState, p: Promise<void>): void {
  const t = p.catch((error) => {
    if (!isDatabaseUnavailable(error)) return state.log.error({ err: error }, 'worker task failed');
    // A failover under a running attempt: nothing more is written for it from here. Once its
    // lease lapses, housekeeping fails it (never called) or marks it unknown and reconciles it.
    state.log.warn(
      { err: error },
      'attempt interrupted: database unavailable; settled after its lease lapses',
    );
  });
  state.tasks.add(t);
  void t.finally(() => state.tasks.delete(t));
}

/** The worker's settlements go through the one post-commit seam, logged under its name. */
export function settled(state: WorkerState, effects: AfterCommit): void {
  const deps: EffectDeps = { wakeups: state.deps.wakeups, metrics: state.deps.metrics, logger: state.log };
  applyAfterCommit(deps, effects);
}
