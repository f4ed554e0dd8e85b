// The claim loop: fills the worker's free slots with attempts started through the API
// and with queued jobs (every free slot in one statement), then sleeps for the poll
// interval unless woken.
import { DatabaseOutage } from '../db/databaseOutage.js';
import type { Operation } from '../operations/operationRegistry.js';
import { providerRotation } from './chooseProvider.js';
import { type ClaimedAttempt, claimQueuedJobs, claimUnownedAttempt } from './claimJobs.js';
import { runAttempt } from './runAttempt.js';
import { track, type WorkerState } from './workerState.js';

/** How long the worker's claims reuse the failover gate's answer for an operation. */
const ROTATION_CACHE_MS = 1_000;

export async function claimLoop(state: WorkerState): Promise<void> {
  const { pool, operations, metrics } = state.deps;
  const { concurrency, leaseMs, pollMs } = state.settings;
  const rotation = rotationCache(state);
  let unownedCheckedAt = 0;
  // During a failover every claim fails: the loop waits longer and logs the outage once.
  const outage = new DatabaseOutage(state.log, 'claiming');
  while (state.running) {
    let wait = pollMs;
    try {
      while (state.running && state.busy < concurrency) {
        // Attempts started through the API: when wake() says one was started here, and at
        // least once per poll interval for those started by other processes.
        if (state.woken || Date.now() - unownedCheckedAt >= pollMs) {
          state.woken = false;
          unownedCheckedAt = Date.now();
          while (state.running && state.busy < concurrency) {
            const unowned = await claimUnownedAttempt(pool, {
              id: state.id,
              leaseMs,
              operations: operations.names(),
            });
            if (!unowned) break;
            metrics.claimLatency.observe(unowned.waitedSeconds);
            state.busy += 1;
            launch(state, unowned);
          }
        }
        const free = concurrency - state.busy;
        if (!state.running || free <= 0) break;
        // Every free slot in one statement: the claim loop's pace no longer bounds intake.
        const batch = await claimQueuedJobs(pool, operations, {
          id: state.id,
          leaseMs,
          limit: free,
          rotation,
        });
        if (batch.length === 0) break;
        state.busy += batch.length;
        for (const claimed of batch) {
          metrics.claimLatency.observe(claimed.waitedSeconds);
          launch(state, claimed);
        }
        if (batch.length < free) break;
      }
      outage.succeeded();
    } catch (error) {
      wait = outage.failed(error, 'claiming failed; retrying after the poll interval', pollMs);
    }
    if (state.running) await pause(state, wait);
  }
}

function launch(state: WorkerState, claimed: ClaimedAttempt): void {
  track(
    state,
    runAttempt(state, claimed).finally(() => {
      state.busy -= 1;
      state.wakeUp?.();
    }),
  );
}

/** Sleeps `ms`, or until `state.wakeUp()` is called. */
function pause(state: WorkerState, ms: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      state.wakeUp = undefined;
      resolve();
    }
    state.wakeUp = done;
  });
}

/**
 * The failover gate reads the verifications table; an idle worker polls often, so its
 * answer is reused for a second (a backup verified or refused just now is seen by this
 * worker's claims at most a second later; the API's fallback button asks anew).
 */
function rotationCache(state: WorkerState): (operation: Operation) => Promise<string[]> {
  const rotations = new Map<string, { at: number; providers: Promise<string[]> }>();
  return (operation) => {
    if (operation.providers.length < 2) return Promise.resolve([...operation.providers]);
    const cached = rotations.get(operation.name);
    if (cached && Date.now() - cached.at < ROTATION_CACHE_MS) return cached.providers;
    const providers = providerRotation(state.deps, operation);
    rotations.set(operation.name, { at: Date.now(), providers });
    providers.catch(() => rotations.delete(operation.name));
    return providers;
  };
}
