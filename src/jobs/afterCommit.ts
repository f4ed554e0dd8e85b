// The one post-commit seam of the attempt engine. Settle functions (completion, failure,
// unknown outcome, abandon, cancel) commit and return what happened; the callers turn
// that into an `AfterCommit` value here, and `applyAfterCommit` is the only place that
// wakes long-polls and relays, counts attempts and logs a settlement. A settlement that
// forgets its wake-up leaves waiting readers on their 500 ms re-read: routing every
// settlement through one function is what keeps that from happening.
import type { EffectDeps } from '../engine/engineDeps.js';
import type { Completion } from './completeAttempt.js';
import type { FailResult } from './failAttempt.js';
import type { UnknownResult } from './markUnknown.js';

/** The outcome label of onejob_attempts_total. */
export type AttemptOutcome = 'succeeded' | 'failed' | 'unknown' | 'lost_race' | 'discarded' | 'abandoned';

/** What a committed settlement asks for after commit. */
export interface AfterCommit {
  /** The job whose long-polls (and relays: settling writes events) are woken. */
  jobId: string;
  /** Counted in onejob_attempts_total; undefined when the write changed nothing. */
  outcome?: AttemptOutcome | undefined;
  log?: { level: 'info' | 'warn'; message: string; fields?: Record<string, unknown> } | undefined;
}

/** A compare-and-swap completion (won, lost the race, or discarded as late). */
export function afterCompletion(jobId: string, done: Completion): AfterCommit {
  return { jobId, outcome: done.kind === 'won' ? 'succeeded' : done.kind };
}

/** A definite failure; counted only when the attempt was still open. */
export function afterFailure(jobId: string, failed: FailResult): AfterCommit {
  return { jobId, outcome: failed.failed ? 'failed' : undefined };
}

/** An outcome made unknown; counted only when the attempt was still open. */
export function afterUnknown(jobId: string, marked: UnknownResult): AfterCommit {
  return { jobId, outcome: marked.marked ? 'unknown' : undefined };
}

/** Applies a committed settlement's wake-ups, metrics and log line. Never throws, never waits. */
export function applyAfterCommit(deps: EffectDeps, effects: AfterCommit): void {
  deps.wakeups.jobSettled(effects.jobId);
  if (effects.outcome) deps.metrics.attempts.inc({ outcome: effects.outcome });
  if (effects.outcome === 'lost_race') deps.metrics.attemptRaces.inc();
  if (effects.log)
    deps.logger[effects.log.level]({ jobId: effects.jobId, ...effects.log.fields }, effects.log.message);
}
