// The job states, defined once. A leaf module with no imports: the server, the HTTP
// schemas, the CLI and the browser client all read their lists and types from here.

/**
 * Every state a job can be in (docs/attempts.md): `queued`, `running`, `succeeded`,
 * `failed`, `unknown` (an attempt's outcome is not known yet) and `cancelled`.
 *
 * @example
 * ```ts
 * const counts = Object.fromEntries(JOB_STATES.map((s) => [s, jobs.filter((j) => j.state === s).length]));
 * ```
 */
export const JOB_STATES = Object.freeze([
  'queued',
  'running',
  'succeeded',
  'failed',
  'unknown',
  'cancelled',
] as const);
/** The state of a job: one of {@link JOB_STATES}. */
export type JobState = (typeof JOB_STATES)[number];

/** States a job never leaves. */
export const TERMINAL_JOB_STATES: readonly JobState[] = Object.freeze([
  'succeeded',
  'failed',
  'cancelled',
] as const);

/** States in which a job may still change by itself or by a worker. */
export const OPEN_JOB_STATES: readonly JobState[] = Object.freeze(['queued', 'running', 'unknown'] as const);

/** States in which a job waits for nothing automatic: final, or unknown (needs a person or a reconciler). */
export const SETTLED_JOB_STATES: readonly JobState[] = Object.freeze([
  'succeeded',
  'failed',
  'cancelled',
  'unknown',
] as const);

/**
 * True when `value` names a job state, for input read from a URL or a form.
 *
 * @example
 * ```ts
 * const state = isJobState(params.get('state')) ? params.get('state') : undefined;
 * ```
 */
export function isJobState(value: unknown): value is JobState {
  return typeof value === 'string' && (JOB_STATES as readonly string[]).includes(value);
}
