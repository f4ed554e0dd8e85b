// The attempt runner: one claimed attempt, one provider call under a lease, its deadline
// turned into an unknown outcome, its hedge, and the settlement of what came back.
// Every settlement is committed by the functions next to this file and its effects go
// through `settled` (the post-commit seam).
import { claimStream } from '../compat/claimStream.js';
import { COMPAT_KIND } from '../compat/compatModels.js';
import { liveStreams } from '../compat/liveStreams.js';
import { isOnejobError } from '../errors/OnejobError.js';
import { failpoint } from '../failpoints/failpoints.js';
import type { TraceSpan } from '../observability/tracing/tracing.js';
import type { Operation } from '../operations/operationRegistry.js';
import type { ProviderOutcome } from '../providers/types.js';
import { type AfterCommit, afterCompletion, afterFailure, afterUnknown } from './afterCommit.js';
import type { AttemptRow } from './attemptRow.js';
import {
  endProviderSpan,
  recordAttemptOutcome,
  startAttemptSpan,
  startProviderSpan,
} from './attemptSpans.js';
import { hedgeProvider, providerRotation } from './chooseProvider.js';
import type { ClaimedAttempt } from './claimJobs.js';
import { completeAttempt } from './completeAttempt.js';
import { failAttempt } from './failAttempt.js';
import { markRunning, releaseLease } from './leases.js';
import { markUnknown } from './markUnknown.js';
import { startAttempt } from './startAttempt.js';
import { settled, track, type WorkerState } from './workerState.js';

/**
 * Runs one claimed attempt. An attempt claimed from the queue is already running (the
 * claim committed that); one still starting (hedges, attempts started through the API)
 * is moved to running here, committed before its call.
 */
export async function runAttempt(state: WorkerState, claimed: ClaimedAttempt): Promise<void> {
  const { attempt: claimedAttempt, job } = claimed;
  state.held.add(claimedAttempt.id);
  const span = startAttemptSpan(job.traceparent, claimedAttempt);
  try {
    await failpoint('worker.after_claim');
    const operation = state.deps.operations.get(job.operation);
    const provider = state.deps.providers.get(claimedAttempt.provider);
    if (!operation || !provider) {
      const message = !operation
        ? `operation ${job.operation} is not configured`
        : `provider ${claimedAttempt.provider} is not available`;
      // Not called, by this process, whatever its state says.
      settled(state, await failEarly(state, claimedAttempt, 'provider_unavailable', message));
      return;
    }
    const attempt =
      claimedAttempt.state === 'running'
        ? claimedAttempt
        : await markRunning(
            state.deps.pool,
            claimedAttempt.id,
            state.id,
            operation.attemptTimeoutMs,
            state.settings.leaseMs,
          );
    if (!attempt) {
      // Abandoned, cancelled or won by a sibling before the call: it provably never left.
      const message = 'the job changed before this attempt called its provider';
      settled(state, await failEarly(state, { ...claimedAttempt, state: 'starting' }, 'not_called', message));
      return;
    }
    const { outcome, timedOut } = await call(state, attempt, operation, job, span);
    await failpoint('worker.after_provider_response');
    if (timedOut)
      await timedOut.catch((error) => state.log.error({ err: error }, 'marking a timeout failed'));
    const effects = await settleOutcome(state, attempt, operation, outcome, timedOut !== undefined, job);
    if (effects) settled(state, effects);
    recordAttemptOutcome(
      span,
      outcome,
      timedOut && !effects ? { jobId: job.id, outcome: 'unknown' } : effects,
    );
    const won = outcome.kind === 'success' && effects?.outcome === 'succeeded';
    if (won && operation.effect === 'pure' && operation.abortLosers) abortSiblings(state, attempt);
    if (!effects) await releaseLease(state.deps.pool, attempt.id, state.id);
  } finally {
    span.end();
    state.held.delete(claimedAttempt.id);
  }
}

async function failEarly(
  state: WorkerState,
  attempt: AttemptRow,
  code: string,
  message: string,
): Promise<AfterCommit> {
  const failed = await failAttempt(
    state.deps.pool,
    state.deps.operations,
    attempt.id,
    { error: { code, message } },
    { from: [attempt.state === 'running' ? 'running' : 'starting'] },
  );
  return {
    ...afterFailure(attempt.job_id, failed),
    log: { level: 'info', message: 'attempt failed before its call', fields: { n: attempt.n, error: code } },
  };
}

/** The provider call, with its deadline (unknown outcome), grace period and hedge timer. */
async function call(
  state: WorkerState,
  attempt: AttemptRow,
  operation: Operation,
  job: ClaimedAttempt['job'],
  span: TraceSpan,
): Promise<{ outcome: ProviderOutcome; timedOut: Promise<void> | undefined }> {
  const { pool, operations } = state.deps;
  const provider = state.deps.providers.get(attempt.provider)!;
  const controller = new AbortController();
  state.calls.set(attempt.id, controller);
  state.callJobs.set(attempt.id, attempt.job_id);
  let timedOut: Promise<void> | undefined;
  const deadline = setTimeout(() => {
    timedOut = markUnknown(pool, operations, attempt.id, {
      code: 'timeout',
      message: `no answer within attemptTimeoutMs (${operation.attemptTimeoutMs} ms)`,
    }).then((r) =>
      settled(state, {
        ...afterUnknown(attempt.job_id, r),
        log: {
          level: 'warn',
          message: 'attempt timed out: outcome unknown',
          fields: { n: attempt.n, job: r.marked ? r.job : undefined },
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
    operation.attemptTimeoutMs + state.settings.graceMs,
  );
  const hedgeTimer =
    operation.effect === 'pure' && operation.hedgeAfterMs !== undefined && attempt.origin !== 'hedge'
      ? setTimeout(() => track(state, hedge(state, attempt, operation, job)), operation.hedgeAfterMs)
      : undefined;
  const onText =
    operation.kind === COMPAT_KIND ? streamClaim(state, attempt, controller, hedgeTimer) : undefined;
  let outcome: ProviderOutcome;
  const client = startProviderSpan(span, provider, attempt);
  try {
    outcome = await provider.call({
      jobId: job.id,
      attemptId: attempt.id,
      attempt: attempt.n,
      operation,
      input: job.input,
      idempotencyKey: job.id,
      // The adapters send it as `traceparent`: the provider's own spans join the job's trace.
      traceparent: client.traceparent ?? job.traceparent,
      signal: controller.signal,
      onText,
    });
  } catch (error) {
    outcome = { kind: 'unknown', error: { code: 'provider_error', message: (error as Error).message } };
  } finally {
    clearTimeout(deadline);
    clearTimeout(hardStop);
    clearTimeout(hedgeTimer);
    state.calls.delete(attempt.id);
    state.callJobs.delete(attempt.id);
    if (onText) liveStreams.close(attempt.job_id, attempt.id);
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
  state: WorkerState,
  attempt: AttemptRow,
  operation: Operation,
  outcome: ProviderOutcome,
  timedOut: boolean,
  job: ClaimedAttempt['job'],
): Promise<AfterCommit | undefined> {
  const { pool, operations } = state.deps;
  const tag = { attemptId: attempt.id, n: attempt.n, provider: attempt.provider };
  if (state.outraced.delete(attempt.id) && outcome.kind !== 'success') {
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
    const done = await state.completions.offer({ attempt, traceparent: job.traceparent, ...outcome });
    const message = done.kind === 'won' ? 'attempt won' : `attempt result discarded (${done.kind})`;
    return {
      ...afterCompletion(attempt.job_id, done),
      log: { level: 'info', message, fields: { ...tag, completion: done.kind } },
    };
  }
  // For a pure operation an ambiguous answer is as good as a failure: retrying has no side effect.
  if (outcome.kind === 'failure' || operation.effect === 'pure') {
    // A pure job may fail over from a provider that failed it for good: settleJob needs the rotation.
    const rotation = operation.effect === 'pure' ? await providerRotation(state.deps, operation) : undefined;
    const failed = await failAttempt(pool, operations, attempt.id, outcome, {
      from: ['running', 'unknown'],
      ...(rotation ? { rotation } : {}),
    });
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
  await releaseLease(pool, attempt.id, state.id);
  const fields = { ...tag, error: outcome.error };
  return {
    ...afterUnknown(attempt.job_id, marked),
    log: { level: 'warn', message: 'attempt outcome unknown', fields },
  };
}

/**
 * The text relay of a compat attempt (docs/compat.md#streams): its first text claims the
 * job's stream, which makes it the only attempt that can complete the job; the hedge
 * timer stops and the siblings in this process are aborted (those elsewhere lose their
 * compare-and-swap). An attempt that cannot claim is outraced and aborted.
 */
function streamClaim(
  state: WorkerState,
  attempt: AttemptRow,
  controller: AbortController,
  hedgeTimer: NodeJS.Timeout | undefined,
): (delta: string) => Promise<boolean> {
  let claimed = false;
  return async (delta) => {
    if (!claimed) {
      if (!(await claimStream(state.deps.pool, attempt.id))) {
        state.outraced.add(attempt.id);
        controller.abort(new Error('a sibling attempt produced the job its text first'));
        return false;
      }
      claimed = true;
      clearTimeout(hedgeTimer);
      abortSiblings(state, attempt);
      liveStreams.open(attempt.job_id, attempt.id);
    }
    liveStreams.append(attempt.job_id, attempt.id, delta);
    return true;
  };
}

/** Once an attempt has won, the siblings still waiting on a provider only cost money: abort them. */
function abortSiblings(state: WorkerState, winner: AttemptRow): void {
  for (const [attemptId, jobId] of state.callJobs) {
    if (jobId !== winner.job_id || attemptId === winner.id) continue;
    state.outraced.add(attemptId);
    state.calls.get(attemptId)?.abort(new Error(`attempt ${winner.n} of this job won`));
  }
}

async function hedge(
  state: WorkerState,
  attempt: AttemptRow,
  operation: Operation,
  job: ClaimedAttempt['job'],
): Promise<void> {
  if (!state.running) return;
  const next = await hedgeProvider(state.deps, operation, attempt.provider);
  if (!next) return;
  try {
    const started = await startAttempt(state.deps.pool, state.deps.operations, {
      jobId: attempt.job_id,
      origin: 'hedge',
      provider: next,
      leaseOwner: state.id,
      leaseMs: state.settings.leaseMs,
    });
    state.log.info({ jobId: attempt.job_id, n: started.attempt.n, provider: next }, 'hedged attempt started');
    await runAttempt(state, { attempt: started.attempt, job, waitedSeconds: 0 });
  } catch (error) {
    // The job finished, or has no attempts left: nothing to hedge.
    if (!isOnejobError(error)) throw error;
  }
}
