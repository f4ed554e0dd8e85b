// The attempt states, defined once. A leaf module with no imports, like jobStates.ts.

export const ATTEMPT_STATES = Object.freeze([
  'starting',
  'running',
  'succeeded',
  'failed',
  'unknown',
  'lost_race',
  'abandoned',
] as const);
export type AttemptState = (typeof ATTEMPT_STATES)[number];

/** Attempts that may still produce a result, and that block a second exclusive attempt. */
export const LIVE_ATTEMPT_STATES: readonly AttemptState[] = Object.freeze([
  'starting',
  'running',
  'unknown',
] as const);

/** Attempts that are over: their cost is final and can be posted to the ledger. */
export const FINISHED_ATTEMPT_STATES: readonly AttemptState[] = Object.freeze([
  'succeeded',
  'failed',
  'lost_race',
  'abandoned',
] as const);

export function isAttemptState(value: unknown): value is AttemptState {
  return typeof value === 'string' && (ATTEMPT_STATES as readonly string[]).includes(value);
}
