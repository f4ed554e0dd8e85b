// The attempt and job state machine as plain functions over plain data. The SQL that
// changes states takes its WHERE lists from these tables and its decisions from these
// functions, so an illegal transition cannot be written; the property test runs random
// interleavings of commands through that SQL and checks the rows against a model of one
// job built on the same functions (test/attempts/jobMachine.ts).
import { type AttemptState, LIVE_ATTEMPT_STATES } from '../vocabulary/attemptStates.js';
import { type JobState, OPEN_JOB_STATES, TERMINAL_JOB_STATES } from '../vocabulary/jobStates.js';

export type { AttemptState, JobState };
export { LIVE_ATTEMPT_STATES, OPEN_JOB_STATES, TERMINAL_JOB_STATES };

export const ATTEMPT_TRANSITIONS: Readonly<Record<AttemptState, readonly AttemptState[]>> = {
  // `failed` from starting: the worker lost its lease before it called the provider, so
  // the call provably never left. `lost_race`: another attempt won before this one called.
  starting: ['running', 'failed', 'lost_race', 'abandoned'],
  running: ['succeeded', 'failed', 'unknown', 'lost_race', 'abandoned'],
  // A late result, reconciliation or an explicit abandon resolves an unknown attempt.
  unknown: ['succeeded', 'failed', 'lost_race', 'abandoned'],
  succeeded: [],
  failed: [],
  lost_race: [],
  abandoned: [],
};

export const JOB_TRANSITIONS: Readonly<Record<JobState, readonly JobState[]>> = {
  // queued -> succeeded: a pure job waiting for a retry may still be won by an earlier attempt's late result.
  queued: ['running', 'succeeded', 'failed', 'unknown', 'cancelled'],
  running: ['running', 'queued', 'succeeded', 'failed', 'unknown', 'cancelled'],
  unknown: ['running', 'queued', 'succeeded', 'failed', 'unknown', 'cancelled'],
  succeeded: [],
  failed: [],
  cancelled: [],
};

export function canMoveAttempt(from: AttemptState, to: AttemptState): boolean {
  return ATTEMPT_TRANSITIONS[from].includes(to);
}

export function canMoveJob(from: JobState, to: JobState): boolean {
  return JOB_TRANSITIONS[from].includes(to);
}

/** The attempt states from which `to` may be reached. */
export function attemptStatesInto(to: AttemptState): AttemptState[] {
  return (Object.keys(ATTEMPT_TRANSITIONS) as AttemptState[]).filter((from) => canMoveAttempt(from, to));
}

/** The job states from which `to` may be reached. */
export function jobStatesInto(to: JobState): JobState[] {
  return (Object.keys(JOB_TRANSITIONS) as JobState[]).filter((from) => canMoveJob(from, to));
}

/** A state list as SQL literals for `state IN (...)`; the values are our own constants. */
export function sqlStates(states: readonly string[]): string {
  return states.map((s) => `'${s.replace(/[^a-z_]/g, '')}'`).join(', ');
}

export type StartRefusal =
  | 'job_completed'
  | 'attempt_outcome_unknown'
  | 'attempt_in_flight'
  | 'max_attempts_reached';

export interface StartCheck {
  jobState: JobState;
  exclusive: boolean;
  /** States of the job's live attempts (starting, running, unknown). */
  live: readonly AttemptState[];
  attemptCount: number;
  maxAttempts: number;
}

/**
 * Why a new attempt may not start, or null when it may. For exclusive jobs the unique
 * index attempts_one_live_exclusive enforces the same rule inside the database.
 */
export function refuseStart(c: StartCheck): StartRefusal | null {
  if (TERMINAL_JOB_STATES.includes(c.jobState)) return 'job_completed';
  if (c.exclusive && c.live.includes('unknown')) return 'attempt_outcome_unknown';
  if (c.exclusive && c.live.length > 0) return 'attempt_in_flight';
  if (c.attemptCount >= c.maxAttempts) return 'max_attempts_reached';
  return null;
}

export interface SettleInput {
  exclusive: boolean;
  /** Other attempts of the job that are starting or running. */
  othersRunning: number;
  /** Other attempts of the job whose outcome is unknown. */
  othersUnknown: number;
  /** How this attempt ended. */
  ended: 'failed' | 'unknown' | 'abandoned';
  attemptCount: number;
  maxAttempts: number;
  /** No retry may follow (a failure that is final, and no other provider to fail over to). */
  final?: boolean;
}

export interface Settlement {
  state: 'running' | 'queued' | 'failed' | 'unknown';
  /** A retry is scheduled (the job goes back to queued after a backoff). */
  retry: boolean;
}

/**
 * What the job does when one attempt ends without a result. Only a definite ending
 * (failed, or abandoned by a person) frees an exclusive job for a retry; an unknown one
 * blocks it. A pure job (no side effect) may retry past unknown attempts, whose late
 * result can still win the compare-and-swap. A final failure takes the retry away: the
 * job fails, or waits for its unknown siblings as it would with no attempts left.
 */
export function settleAfterAttempt(s: SettleInput): Settlement {
  if (s.othersRunning > 0) return { state: 'running', retry: false };
  if (s.exclusive && (s.ended === 'unknown' || s.othersUnknown > 0))
    return { state: 'unknown', retry: false };
  if (s.attemptCount < s.maxAttempts && s.final !== true) return { state: 'queued', retry: true };
  if (s.ended === 'unknown' || s.othersUnknown > 0) return { state: 'unknown', retry: false };
  return { state: 'failed', retry: false };
}
