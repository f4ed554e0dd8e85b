// The worker role: claims jobs, runs one provider call per attempt under a lease,
// turns deadlines into unknown outcomes, hedges pure operations, sweeps the leases of
// dead workers and reconciles unknown attempts. Every decision is a database write
// made by the functions next to this file; the worker only sequences them, in three
// parts over one explicit state (workerState.ts): the claim loop (claimLoop.ts), the
// attempt runner (runAttempt.ts) and housekeeping (workerHousekeeping.ts).
import type { WorkerDeps } from '../engine/engineDeps.js';
import { claimLoop } from './claimLoop.js';
import { startHousekeeping } from './workerHousekeeping.js';
import { createWorkerState, WORKER_DEFAULTS, type WorkerOptions } from './workerState.js';

export { WORKER_DEFAULTS, type WorkerOptions };

export interface Worker {
  readonly id: string;
  /** Look for work now instead of at the next poll (an attempt was just started through the API). */
  wake(): void;
  stop(): Promise<void>;
}

export function startWorker(deps: WorkerDeps, options: WorkerOptions = {}): Worker {
  const state = createWorkerState(deps, options);
  const loop = claimLoop(state);
  const housekeeping = startHousekeeping(state);
  const { concurrency, leaseMs, pollMs, graceMs, drainMs } = state.settings;
  state.log.info({ concurrency, leaseMs, pollMs, graceMs }, 'worker started');

  let stopping: Promise<void> | undefined;
  return {
    id: state.id,
    wake: () => {
      state.woken = true;
      state.wakeUp?.();
    },
    stop() {
      stopping ??= (async () => {
        state.running = false;
        state.wakeUp?.();
        await loop;
        const drained = Promise.all([...state.tasks]);
        const timer = setTimeout(() => {
          for (const c of state.calls.values()) c.abort(new Error('worker stopping'));
        }, drainMs);
        await drained;
        // Tasks started while draining (hedges) settle too.
        while (state.tasks.size > 0) await Promise.all([...state.tasks]);
        clearTimeout(timer);
        await housekeeping.stop();
        state.log.info('worker stopped');
      })();
      return stopping;
    },
  };
}
