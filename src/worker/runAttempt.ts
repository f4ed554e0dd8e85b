// The attempt runner: one claimed attempt, one provider call under a lease, its deadline
// turned into an unknown outcome, its hedge, and the settlement of what came back.
// Every settlement is committed by the functions next to this file and its effects go
// through `settled` (the post-commit seam).
import { AttemptEnded, holdForAttempt } from '../budgets/holdForAttempt.js';
import { holdPrice } from '../budgets/holdPrice.js';
import { DEADLOCK_DETECTED, SERIALIZATION_FAILURE, sqlState } from '../db/sqlstate.js';
import { withTransaction } from '../db/withTransaction.js';
import { isOnejobError } from '../errors/OnejobError.js';
import { failpoint } from '../failpoints/failpoints.js';
import { type AfterCommit, afterCompletion, afterFailure, afterUnknown } from '../jobs/afterCommit.js';
import type { AttemptRow } from '../jobs/attemptRow.js';
import { hedgeProvider, providerRotation } from '../jobs/chooseProvider.js';
import { completeAttempt } from '../jobs/completeAttempt.js';
import { failAttempt } from '../jobs/failAttempt.js';
import { markUnknown } from '../jobs/markUnknown.js';
import { startAttempt } from '../jobs/startAttempt.js';
import type { TraceSpan } from '../observability/tracing/tracing.js';
import type { Operation } from '../operations/operationRegistry.js';
import { attemptCall } from '../providers/attemptCall.js';
import { NoProviderSlot, providerCaps } from '../providers/providerSlots.js';
import { pauseOf } from '../providers/providerThrottle.js';
import type { ProviderOutcome } from '../providers/types.js';
import {
  endProviderSpan,
  recordAttemptOutcome,
  startAttemptSpan,
  startProviderSpan,
} from './attemptSpans.js';
import type { ClaimedAttempt } from './claimJobs.js';
import { type CompletionBatcher, createCompletionBatcher, type Refill } from './completionBatcher.js';
import { markRunning, releaseLease } from './leases.js';
import { settled, type WorkerContext } from './workerContext.js';

/** The attempt runner: runs each attempt it is given, and its hedges, to a settlement. */
export interface AttemptRunner {
  run(claimed: ClaimedAttempt): Promise<void>;
}

/** What the runner keeps to itself; leases and open calls it shares through `ctx.held`. */
interface Runner {
  readonly ctx: WorkerContext;
  /** Results of this worker's attempts, committed in batches: the success path. */
  readonly completions: CompletionBatcher;
  /** Job of each open call, so a winner can abort its siblings (hedges of a pure operation). */
  readonly callJobs: Map<string, string>;
  /** Calls aborted because a sibling won: their ending is a lost race, not a failure. */
  readonly outraced: Set<string>;
  /** Providers with a `maxConcurrency`: a hedge takes one of their slots or is not made. */
  readonly caps: Record<string, number>;
}

/** `refill`: the claim loop's, once it exists: completions claim the jobs that take their slots. */
export function createAttemptRunner(ctx: WorkerContext, refill?: () => Refill | undefined): AttemptRunner {
  const r: Runner = {
    ctx,
    completions: createCompletionBatcher(ctx.deps.pool, ctx.batchDb, {
      refill,
      // One statement in flight (the batcher's default) carrying every result that arrived
      // while the previous one ran, up to every slot: a drain at concurrency 24 ran about a
      // fifth faster than with four statements of up to eight results, and a tenth faster
      // than with two of twelve (docs/benchmarks.md).
      maxBatch: Math.max(1, ctx.settings.concurrency),
      onBatchFailed: (error, size) =>
        ctx.log.debug({ err: error, size }, 'batched completion failed; completing one by one'),
    }),
    callJobs: new Map(),
    outraced: new Set(),
    caps: providerCaps(ctx.deps.config),
  };
  return { run: (claimed) => runAttempt(r, claimed) };
}

/**
 * Runs one claimed attempt. An attempt claimed from the queue is already running (the
 * claim committed that); one still starting (hedges, attempts started through the API)
 * is moved to running here, committed before its call.
 */
async function runAttempt(r: Runner, claimed: ClaimedAttempt): Promise<void> {
  const { attempt: claimedAttempt, job } = claimed;
  r.ctx.held.hold(claimedAttempt.id);
  const span = startAttemptSpan(job.traceparent, claimedAttempt);
  try {
    await failpoint('worker.after_claim');
    const operation = r.ctx.deps.operations.get(job.operation);
    const provider = r.ctx.deps.providers.get(claimedAttempt.provider);
    if (!operation || !provider) {
      const message = !operation
        ? `operation ${job.operation} is not configured`
        : `provider ${claimedAttempt.provider} is not available`;
      // Not called, by this process, whatever its state says.
      settled(r.ctx, await failEarly(r, claimedAttempt, 'provider_unavailable', message));
      return;
    }
    const attempt =
      claimedAttempt.state === 'running'
        ? claimedAttempt
        : await markRunning(
            r.ctx.deps.pool,
            claimedAttempt.id,
            r.ctx.id,
            operation.attemptTimeoutMs,
            r.ctx.settings.leaseMs,
          );
    if (!attempt) {
      // Abandoned, cancelled or won by a sibling before the call: it provably never left.
      const message = 'the job changed before this attempt called its provider';
      settled(r.ctx, await failEarly(r, { ...claimedAttempt, state: 'starting' }, 'not_called', message));
      return;
    }
    // Attempts started through startAttempt (hedges, the API) took their hold as they
    // started; those the claim started take it now, before the call.
    if (claimedAttempt.state === 'running') {
      const refused = await holdBeforeCall(r, attempt, operation, job, claimed.holds);
      if (refused) {
        settled(r.ctx, refused);
        return;
      }
    }
    const { outcome, timedOut } = await call(r, attempt, operation, job, span);
    await failpoint('worker.after_provider_response');
    if (timedOut)
      await timedOut.catch((error) => r.ctx.log.error({ err: error }, 'marking a timeout failed'));
    const effects = await settleOutcome(r, attempt, operation, outcome, timedOut !== undefined, job);
    if (effects) settled(r.ctx, effects);
    recordAttemptOutcome(
      span,
      outcome,
      timedOut && !effects ? { jobId: job.id, outcome: 'unknown' } : effects,
    );
    const won = outcome.kind === 'success' && effects?.outcome === 'succeeded';
    if (won && operation.effect === 'pure' && operation.abortLosers) abortSiblings(r, attempt);
    if (!effects) await releaseLease(r.ctx.deps.pool, attempt.id, r.ctx.id);
  } finally {
    span.end();
    r.ctx.held.release(claimedAttempt.id);
  }
}

/**
 * Holds what the attempt's call can cost at most, if its provider is priced. Returns the
 * settlement when the call must not be made: the owner's budget cannot hold it (the job
 * fails `budget_exhausted`, final, nothing charged), or the attempt ended meanwhile.
 */
async function holdBeforeCall(
  r: Runner,
  attempt: AttemptRow,
  operation: Operation,
  job: ClaimedAttempt['job'],
  batch?: ClaimedAttempt['holds'],
): Promise<AfterCommit | undefined> {
  const taken = await batch?.then(
    (outcomes) => outcomes.get(attempt.id),
    () => undefined,
  );
  if (taken?.kind === 'none' || taken?.kind === 'held') return undefined;
  if (taken?.kind === 'ended') {
    const log = {
      level: 'info' as const,
      message: 'attempt ended before its call',
      fields: { n: attempt.n },
    };
    return { jobId: attempt.job_id, log };
  }
  if (taken?.kind === 'refused') {
    r.ctx.deps.metrics.budgetRefusals.inc();
    return failEarly(r, attempt, 'budget_exhausted', taken.error.detail, { finalBy: 'budget_exhausted' });
  }
  const price = await holdPrice(r.ctx.deps.config, operation, attempt.provider, job.input);
  if (!price) return undefined;
  const hold = { ...price, attemptId: attempt.id, jobId: job.id, provider: attempt.provider };
  for (let tries = 1; ; tries++) {
    try {
      await withTransaction(r.ctx.deps.pool, (tx) => holdForAttempt(tx, hold));
      return undefined;
    } catch (error) {
      if (error instanceof AttemptEnded) {
        const log = {
          level: 'info' as const,
          message: 'attempt ended before its call',
          fields: { n: attempt.n },
        };
        return { jobId: attempt.job_id, log };
      }
      if (isOnejobError(error) && error.code === 'budget_exhausted') {
        r.ctx.deps.metrics.budgetRefusals.inc();
        return failEarly(r, attempt, 'budget_exhausted', error.detail, { finalBy: 'budget_exhausted' });
      }
      const code = sqlState(error);
      if ((code === DEADLOCK_DETECTED || code === SERIALIZATION_FAILURE) && tries < 3) continue;
      // The call was not made: a definite failure, retried like any other.
      const message = `the hold before the call could not be written: ${(error as Error).message}`;
      return failEarly(r, attempt, 'hold_failed', message);
    }
  }
}

async function failEarly(
  r: Runner,
  attempt: AttemptRow,
  code: string,
  message: string,
  extra: { finalBy?: 'budget_exhausted' } = {},
): Promise<AfterCommit> {
  const failed = await failAttempt(
    r.ctx.deps.pool,
    r.ctx.deps.operations,
    attempt.id,
    { error: { code, message, ...extra } },
    { from: [attempt.state === 'running' ? 'running' : 'starting'] },
  );
  return {
    ...afterFailure(attempt.job_id, failed),
    log: { level: 'info', message: 'attempt failed before its call', fields: { n: attempt.n, error: code } },
  };
}

/** The provider call, with its deadline (unknown outcome), grace period and hedge timer. */
async function call(
  r: Runner,
  attempt: AttemptRow,
  operation: Operation,
  job: ClaimedAttempt['job'],
  span: TraceSpan,
): Promise<{ outcome: ProviderOutcome; timedOut: Promise<void> | undefined }> {
  const { pool, operations } = r.ctx.deps;
  const provider = r.ctx.deps.providers.get(attempt.provider)!;
  const controller = new AbortController();
  r.ctx.held.openCall(attempt.id, controller);
  r.callJobs.set(attempt.id, attempt.job_id);
  let timedOut: Promise<void> | undefined;
  const deadline = setTimeout(() => {
    timedOut = markUnknown(pool, operations, attempt.id, {
      code: 'timeout',
      message: `no answer within attemptTimeoutMs (${operation.attemptTimeoutMs} ms)`,
    }).then((marked) =>
      settled(r.ctx, {
        ...afterUnknown(attempt.job_id, marked),
        log: {
          level: 'warn',
          message: 'attempt timed out: outcome unknown',
          fields: { n: attempt.n, job: marked.marked ? marked.job : undefined },
        },
      }),
    );
    // Handled here so a failure while the provider call is still open (no writable database
    // during a failover) does not end the process; it is logged once the call returns.
    timedOut.catch(() => undefined);
  }, operation.attemptTimeoutMs);
  // After the deadline the call stays open for the grace period: a late answer still counts.
  const hardStop = setTimeout(
    () => controller.abort(new Error('grace period over')),
    operation.attemptTimeoutMs + r.ctx.settings.graceMs,
  );
  const hedgeTimer =
    operation.effect === 'pure' && operation.hedgeAfterMs !== undefined && attempt.origin !== 'hedge'
      ? setTimeout(() => r.ctx.tasks.track(hedge(r, attempt, operation, job)), operation.hedgeAfterMs)
      : undefined;
  // The first text of a relayed attempt claims the job's stream: stop hedging and abort the
  // siblings in this process (those elsewhere lose their compare-and-swap); an attempt
  // that cannot claim is outraced and aborted.
  const relay = r.ctx.deps.relayText?.(
    operation,
    { id: attempt.id, jobId: attempt.job_id },
    {
      claimed() {
        clearTimeout(hedgeTimer);
        abortSiblings(r, attempt);
      },
      refused() {
        r.outraced.add(attempt.id);
        controller.abort(new Error('a sibling attempt produced the job its text first'));
      },
    },
  );
  let outcome: ProviderOutcome;
  const client = startProviderSpan(span, provider, attempt);
  const inFlight = r.ctx.deps.metrics.providerCallsInFlight.labels({ provider: attempt.provider });
  inFlight.inc();
  try {
    outcome = await provider.call(
      attemptCall(job, attempt, operation, {
        // The adapters send it as `traceparent`: the provider's own spans join the job's trace.
        traceparent: client.traceparent ?? job.traceparent,
        signal: controller.signal,
        onText: relay?.onText,
      }),
    );
  } catch (error) {
    outcome = { kind: 'unknown', error: { code: 'provider_error', message: (error as Error).message } };
  } finally {
    inFlight.dec();
    clearTimeout(deadline);
    clearTimeout(hardStop);
    clearTimeout(hedgeTimer);
    r.ctx.held.closeCall(attempt.id);
    r.callJobs.delete(attempt.id);
    relay?.close();
  }
  endProviderSpan(client, outcome);
  return { outcome, timedOut };
}

/**
 * Commits what the call answered and says what to apply after commit; undefined when
 * nothing was written (an ambiguous answer after the deadline already made it unknown):
 * the attempt's lease is then released for reconciliation.
 */
async function settleOutcome(
  r: Runner,
  attempt: AttemptRow,
  operation: Operation,
  outcome: ProviderOutcome,
  timedOut: boolean,
  job: ClaimedAttempt['job'],
): Promise<AfterCommit | undefined> {
  const { pool, operations } = r.ctx.deps;
  const tag = { attemptId: attempt.id, n: attempt.n, provider: attempt.provider };
  if (r.outraced.delete(attempt.id) && outcome.kind !== 'success') {
    // Aborted because a sibling already won: offer an empty result, which the
    // compare-and-swap refuses (the job has its winner), so the attempt is recorded as
    // lost_race with what it cost until the abort.
    const done = await completeAttempt(pool, attempt.id, {
      result: null,
      usage: outcome.usage,
      costMicros: outcome.costMicros,
    });
    const message = 'attempt aborted: a sibling attempt won';
    return {
      ...afterCompletion(attempt.job_id, done),
      log: { level: 'info', message, fields: { ...tag, completion: done.kind } },
    };
  }
  if (outcome.kind === 'success') {
    const done = await r.completions.offer({ attempt, traceparent: job.traceparent, ...outcome });
    const message = done.kind === 'won' ? 'attempt won' : `attempt result discarded (${done.kind})`;
    return {
      ...afterCompletion(attempt.job_id, done),
      log: { level: 'info', message, fields: { ...tag, completion: done.kind } },
    };
  }
  // For a pure operation an ambiguous answer is as good as a failure: retrying has no side effect.
  if (outcome.kind === 'failure' || operation.effect === 'pure') {
    // A pure job may fail over from a provider that failed it for good: settleJob needs the rotation.
    const rotation = operation.effect === 'pure' ? await providerRotation(r.ctx.deps, operation) : undefined;
    // 429/503 with Retry-After: the provider is paused for every worker, the attempt uncounted.
    const pause = pauseOf(outcome);
    const failed = await failAttempt(pool, operations, attempt.id, outcome, {
      from: ['running', 'unknown'],
      ...(rotation ? { rotation } : {}),
      ...(pause ? { pause: { provider: attempt.provider, ...pause } } : {}),
    });
    if (pause) r.ctx.deps.metrics.providerThrottles.inc({ provider: attempt.provider });
    const fields = { ...tag, error: outcome.error, job: failed.failed ? failed.job : undefined };
    return {
      ...afterFailure(attempt.job_id, failed),
      log: { level: 'info', message: 'attempt failed', fields },
    };
  }
  if (timedOut) return undefined;
  const marked = await markUnknown(pool, operations, attempt.id, outcome.error, {
    usage: outcome.usage,
    costMicros: outcome.costMicros,
  });
  await releaseLease(pool, attempt.id, r.ctx.id);
  const fields = { ...tag, error: outcome.error };
  return {
    ...afterUnknown(attempt.job_id, marked),
    log: { level: 'warn', message: 'attempt outcome unknown', fields },
  };
}

/** Once an attempt has won, the siblings still waiting on a provider only cost money: abort them. */
function abortSiblings(r: Runner, winner: AttemptRow): void {
  for (const [attemptId, jobId] of r.callJobs) {
    if (jobId !== winner.job_id || attemptId === winner.id) continue;
    r.outraced.add(attemptId);
    r.ctx.held.call(attemptId)?.abort(new Error(`attempt ${winner.n} of this job won`));
  }
}

async function hedge(
  r: Runner,
  attempt: AttemptRow,
  operation: Operation,
  job: ClaimedAttempt['job'],
): Promise<void> {
  if (!r.ctx.running()) return;
  const next = await hedgeProvider(r.ctx.deps, operation, attempt.provider);
  if (!next) return;
  try {
    const started = await startAttempt(r.ctx.deps.pool, r.ctx.deps.operations, {
      jobId: attempt.job_id,
      origin: 'hedge',
      provider: next,
      leaseOwner: r.ctx.id,
      leaseMs: r.ctx.settings.leaseMs,
      caps: r.caps,
      price: (provider, op, input) => holdPrice(r.ctx.deps.config, op, provider, input),
    });
    r.ctx.log.info({ jobId: attempt.job_id, n: started.attempt.n, provider: next }, 'hedged attempt started');
    await runAttempt(r, { attempt: started.attempt, job, waitedSeconds: 0 });
  } catch (error) {
    // The job finished, or has no attempts left, or the provider has no free slot, or the
    // owner's budget has no room for the hedge's hold: nothing to hedge; the primary goes on.
    if (!isOnejobError(error) && !(error instanceof NoProviderSlot)) throw error;
    if (isOnejobError(error, 'budget_exhausted')) {
      r.ctx.deps.metrics.budgetRefusals.inc();
      r.ctx.log.info(
        { jobId: attempt.job_id, provider: next },
        'hedge not started: the budget cannot hold it',
      );
    }
  }
}
