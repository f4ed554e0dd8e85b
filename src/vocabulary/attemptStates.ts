// The attempt states, defined once. A leaf module with no imports, like jobStates.ts.

/**
 * Every state an attempt can be in (docs/attempts.md): `starting`, `running`,
 * `succeeded`, `failed`, `unknown`, `lost_race` (another attempt won first) and
 * `abandoned` (given up on by a person; its late result can never complete the job).
 *
 * @example
 * ```ts
 * for (const state of ATTEMPT_STATES) console.log(state, attempts.filter((a) => a.state === state).length);
 * ```
 */
export const ATTEMPT_STATES = Object.freeze([
  'starting',
  'running',
  'succeeded',
  'failed',
  'unknown',
  'lost_race',
  'abandoned',
] as const);
/** The state of an attempt: one of {@link ATTEMPT_STATES}. */
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

/**
 * True when `value` names an attempt state, for input read from a URL or a form.
 *
 * @example
 * ```ts
 * if (!isAttemptState(raw)) throw new Error(`not an attempt state: ${raw}`);
 * ```
 */
export function isAttemptState(value: unknown): value is AttemptState {
  return typeof value === 'string' && (ATTEMPT_STATES as readonly string[]).includes(value);
}
