// The public JSON shapes of the HTTP API (contract section 4), for clients. Kept apart
// from the server's own types so the client bundle pulls in no server code.

/** The state of a job, as the HTTP API reports it. */
export type JobState = 'queued' | 'running' | 'succeeded' | 'failed' | 'unknown' | 'cancelled';
/** The state of an attempt, as the HTTP API reports it. */
export type AttemptState =
  | 'starting'
  | 'running'
  | 'succeeded'
  | 'failed'
  | 'unknown'
  | 'lost_race'
  | 'abandoned';

/**
 * States in which a job waits for nothing automatic: final, or unknown (needs a person or a reconciler).
 *
 * @example
 * ```ts
 * const job = await client.jobs.wait(id, { until: (j) => SETTLED_STATES.includes(j.state) });
 * ```
 */
export const SETTLED_STATES: readonly JobState[] = ['succeeded', 'failed', 'cancelled', 'unknown'];

/** One attempt of a job, as the HTTP API returns it. */
export interface Attempt {
  id: string;
  n: number;
  provider: string;
  state: AttemptState;
  /** Why the attempt exists: worker, retry, hedge, manual (the fallback button), reconcile. */
  origin?: string;
  startedAt: string;
  finishedAt: string | null;
  error: unknown;
  usage?: unknown;
  costMicros?: number | null;
  [extra: string]: unknown;
}

/** A job, as the HTTP API returns it; `I` and `R` type its input and result. */
export interface Job<I = Record<string, unknown>, R = unknown> {
  id: string;
  operation: string;
  state: JobState;
  version: number;
  idempotencyKey: string;
  input: I;
  result: R | null;
  error: unknown;
  completedBy: string | null;
  attempts: Attempt[];
  createdAt: string;
  updatedAt: string;
  archivedAt?: string;
}

/** A page of `jobs.list`; pass `nextCursor` back as `cursor` for the next one. */
export interface JobPage {
  items: Job[];
  nextCursor: string | null;
}

/** Filters and paging of `jobs.list` and `jobs.iterate`. */
export interface ListJobsQuery {
  state?: JobState;
  operation?: string;
  idempotencyKey?: string;
  /** 1 to 200, default 50. */
  limit?: number;
  cursor?: string | null;
}

/** RFC 9457 problem document with onejob's stable `code`. */
export interface Problem {
  type?: string;
  title?: string;
  status: number;
  code: string;
  detail?: string;
  [extra: string]: unknown;
}
