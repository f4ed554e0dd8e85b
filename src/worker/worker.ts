// The worker role: claims jobs, runs one provider call per attempt under a lease,
// turns deadlines into unknown outcomes, hedges pure operations, sweeps the leases of
// dead workers and reconciles unknown attempts. Every decision is a database write
// made by the functions next to this file; the worker only sequences them, in three
// parts that each keep their own state: the claim loop (claimLoop.ts), the attempt runner
// (runAttempt.ts) and housekeeping (workerHousekeeping.ts). What they share is read-only
// or explicit (workerContext.ts): settings, the held leases, the background tasks.
import type { WorkerDeps } from '../engine/engineDeps.js';
import { startClaimLoop } from './claimLoop.js';
import type { Refill } from './completionBatcher.js';
import { createAttemptRunner } from './runAttempt.js';
import { createWorkerContext, WORKER_DEFAULTS, type WorkerOptions } from './workerContext.js';
import { startHousekeeping } from './workerHousekeeping.js';

export { WORKER_DEFAULTS, type WorkerOptions };

export interface Worker {
  readonly id: string;
  /** Look for work now instead of at the next poll (an attempt was just started through the API). */
  wake(): void;
  stop(): Promise<void>;
}

export function startWorker(deps: WorkerDeps, options: WorkerOptions = {}): Worker {
  let running = true;
  const ctx = createWorkerContext(deps, options, () => running);
  // A busy worker claims in the statement that completes (completeAndClaim.ts): the attempt
  // runner's completions ask the claim loop, which exists once the runner does.
  let refill: Refill | undefined;
  const loop = startClaimLoop(
    ctx,
    createAttemptRunner(ctx, () => refill),
  );
  refill = loop.refill;
  const housekeeping = startHousekeeping(ctx);
  const { concurrency, leaseMs, pollMs, graceMs, drainMs } = ctx.settings;
  ctx.log.info({ concurrency, leaseMs, pollMs, graceMs }, 'worker started');

  let stopping: Promise<void> | undefined;
  return {
    id: ctx.id,
    wake: () => loop.wake(),
    stop() {
      stopping ??= (async () => {
        running = false;
        loop.stop();
        await loop.done;
        const timer = setTimeout(() => ctx.held.abortCalls(new Error('worker stopping')), drainMs);
        // Tasks started while draining (hedges) settle too.
        await ctx.tasks.drain();
        clearTimeout(timer);
        await housekeeping.stop();
        ctx.log.info('worker stopped');
      })();
      return stopping;
    },
  };
}
