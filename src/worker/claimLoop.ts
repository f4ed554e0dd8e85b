// The claim loop: fills the worker's free slots with attempts started through the API
// and with queued jobs (every free slot in one statement), then sleeps for the poll
// interval, or until the next waiting job comes due, unless woken.

import { DatabaseOutage } from '../db/databaseOutage.js';
import { providerRotation } from '../jobs/chooseProvider.js';
import type { Operation } from '../operations/operationRegistry.js';
import { makeProviderSlots, providerCaps } from '../providers/providerSlots.js';
import {
  type ClaimedAttempt,
  type ClaimLimits,
  claimQueuedJobs,
  claimUnownedAttempt,
  newOwnerTurns,
  type OwnerTurns,
} from './claimJobs.js';
import type { Refill } from './completionBatcher.js';
import { holdClaimed } from './holdClaimed.js';
import type { AttemptRunner } from './runAttempt.js';
import { untilNextDue } from './untilNextDue.js';
import type { WorkerContext } from './workerContext.js';

/** How long the worker's claims reuse the failover gate's answer for an operation. */
const ROTATION_CACHE_MS = 1_000;

/** The claim loop of a worker: `done` settles once it stopped claiming after `stop()`. */
export interface ClaimLoop {
  readonly done: Promise<void>;
  /** Look for work now: an attempt was started through the API, or a job was queued. */
  wake(): void;
  /** No new claims; the current pause ends at once. */
  stop(): void;
  /** Claims made by completion batches for the slots their attempts free (completionBatcher.ts). */
  readonly refill: Refill;
}

/** What the claim loop keeps to itself. */
interface LoopState {
  /** Attempts claimed and not yet finished. */
  busy: number;
  /** Ends the current pause. */
  wakeUp: (() => void) | undefined;
  /** Set by wake(): an attempt was started through the API, look for unowned attempts. */
  woken: boolean;
  /**
   * Something to look at arrived since the current round of claims began (a slot freed, a
   * job was queued, an attempt was started): the next pause ends at once. Without it, a
   * wake-up that lands while the claims are in flight would be lost for a poll interval.
   */
  kicked: boolean;
  /**
   * The last claim found fewer queued jobs than it asked for (and no owner had more than
   * its share): completions claim nothing until a new job is announced or the loop's own
   * claim fills up again.
   */
  dry: boolean;
  /** Where this worker's claims are in the owners' round (claimJobs.ts). */
  readonly turns: OwnerTurns;
  /** The per-owner and per-provider caps every claim keeps. */
  readonly limits: ClaimLimits;
}

/** Ends the current pause, or the next one if the loop is busy claiming. */
function kick(loop: LoopState): void {
  loop.kicked = true;
  loop.wakeUp?.();
}

export function startClaimLoop(ctx: WorkerContext, runner: AttemptRunner): ClaimLoop {
  const loop: LoopState = {
    busy: 0,
    wakeUp: undefined,
    woken: true,
    kicked: false,
    dry: false,
    turns: newOwnerTurns(),
    limits: {
      perOwner: ctx.settings.maxSlotsPerOwner > 0 ? ctx.settings.maxSlotsPerOwner : null,
      providers: providerCaps(ctx.deps.config),
    },
  };
  const rotation = rotationCache(ctx);
  const { concurrency } = ctx.settings;
  // A new job is announced after its commit (in this process at once, from others by
  // NOTIFY): an idle loop with a free slot takes the announcement and claims now instead of
  // at its next poll. A busy loop declines it (it claims again as a slot frees), and a lost
  // announcement costs only the poll interval.
  const listening = ctx.deps.wakeups
    .listenForJobs(() => {
      loop.dry = false;
      if (loop.busy >= concurrency) return false;
      kick(loop);
      return true;
    })
    .catch((error: unknown) => {
      ctx.log.warn({ err: error }, 'worker not listening for new jobs; it finds them at each poll');
      return undefined;
    });
  const launch = (claimed: ClaimedAttempt) =>
    ctx.tasks.track(
      runner.run(claimed).finally(() => {
        loop.busy -= 1;
        kick(loop);
      }),
    );
  const refill: Refill = {
    operations: ctx.deps.operations,
    request(size) {
      if (!ctx.running() || loop.dry || size <= 0) return undefined;
      const { turns, limits } = loop;
      return { id: ctx.id, leaseMs: ctx.settings.leaseMs, limit: size, rotation, turns, limits };
    },
    claimed(attempts, requested) {
      if (attempts.length < requested && !loop.turns.more) loop.dry = true;
      // Counted before the completing attempts free their slots: the loop never claims them twice.
      loop.busy += attempts.length;
      holdClaimed(ctx, attempts);
      for (const claimed of attempts) {
        ctx.deps.metrics.claimLatency.observe(claimed.waitedSeconds);
        launch(claimed);
      }
    },
  };
  return {
    refill,
    done: claimLoop(ctx, loop, launch, rotation).finally(async () => {
      const unlisten = await listening;
      await unlisten?.();
    }),
    wake() {
      loop.woken = true;
      kick(loop);
    },
    stop() {
      loop.wakeUp?.();
    },
  };
}

async function claimLoop(
  ctx: WorkerContext,
  loop: LoopState,
  launch: (claimed: ClaimedAttempt) => void,
  rotation: (operation: Operation) => Promise<string[]>,
): Promise<void> {
  const { pool, operations, metrics } = ctx.deps;
  const { concurrency, leaseMs, pollMs } = ctx.settings;
  let unownedCheckedAt = 0;
  let slotsMade = false;
  // During a failover every claim fails: the loop waits longer and logs the outage once.
  const outage = new DatabaseOutage(ctx.log, 'claiming');
  while (ctx.running()) {
    let wait = pollMs;
    loop.kicked = false;
    // The last claim of this round found fewer jobs than free slots (an owner cut to its
    // share included: other owners' jobs may still be waiting for their time).
    let dryRound = false;
    try {
      if (!slotsMade) {
        await makeProviderSlots(pool, loop.limits.providers);
        slotsMade = true;
      }
      while (ctx.running() && loop.busy < concurrency) {
        // Attempts started through the API: when wake() says one was started here, and at
        // least once per poll interval for those started by other processes.
        if (loop.woken || Date.now() - unownedCheckedAt >= pollMs) {
          loop.woken = false;
          unownedCheckedAt = Date.now();
          while (ctx.running() && loop.busy < concurrency) {
            const unowned = await claimUnownedAttempt(pool, {
              id: ctx.id,
              leaseMs,
              operations: operations.names(),
              caps: loop.limits.providers,
            });
            if (!unowned) break;
            metrics.claimLatency.observe(unowned.waitedSeconds);
            loop.busy += 1;
            launch(unowned);
          }
        }
        const free = concurrency - loop.busy;
        if (!ctx.running() || free <= 0) break;
        // Every free slot in one statement: the claim loop's pace no longer bounds intake.
        const batch = await claimQueuedJobs(await ctx.batchDb(), operations, {
          id: ctx.id,
          leaseMs,
          limit: free,
          rotation,
          turns: loop.turns,
          limits: loop.limits,
        });
        // A short batch with an owner cut to its share: the next claim serves the others' leftovers.
        const cut = loop.turns.more;
        loop.dry = batch.length < free && !cut;
        dryRound = batch.length < free;
        if (batch.length === 0) break;
        loop.busy += batch.length;
        holdClaimed(ctx, batch);
        for (const claimed of batch) {
          metrics.claimLatency.observe(claimed.waitedSeconds);
          launch(claimed);
        }
        if (batch.length < free && !cut) break;
      }
      // Slots are free and nothing is due: sleep until the next waiting job (a runAt, a
      // retry's backoff) comes due, when that is sooner than the poll. A job created
      // meanwhile with an earlier time is announced, and the claim and this look again.
      if (dryRound && ctx.running()) {
        const due = await untilNextDue(pool);
        if (due !== undefined) wait = Math.min(wait, Math.max(0, Math.ceil(due)));
      }
      outage.succeeded();
    } catch (error) {
      wait = outage.failed(error, 'claiming failed; retrying after the poll interval', pollMs);
    }
    if (ctx.running()) await pause(loop, wait);
  }
}

/** Sleeps `ms`, or until `loop.wakeUp()` is called. */
function pause(loop: LoopState, ms: number): Promise<void> {
  return new Promise<void>((resolve) => {
    if (loop.kicked) {
      resolve();
      return;
    }
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      loop.wakeUp = undefined;
      resolve();
    }
    loop.wakeUp = done;
  });
}

/**
 * The failover gate reads the verifications table; an idle worker polls often, so its
 * answer is reused for a second (a backup verified or refused just now is seen by this
 * worker's claims at most a second later; the API's fallback button asks anew).
 */
function rotationCache(ctx: WorkerContext): (operation: Operation) => Promise<string[]> {
  const rotations = new Map<string, { at: number; providers: Promise<string[]> }>();
  return (operation) => {
    if (operation.providers.length < 2) return Promise.resolve([...operation.providers]);
    const cached = rotations.get(operation.name);
    if (cached && Date.now() - cached.at < ROTATION_CACHE_MS) return cached.providers;
    const providers = providerRotation(ctx.deps, operation);
    rotations.set(operation.name, { at: Date.now(), providers });
    providers.catch(() => rotations.delete(operation.name));
    return providers;
  };
}
