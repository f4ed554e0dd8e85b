// Rows to the public job representation (contract section 4).

/** The state of a job (docs/attempts.md). */
export type JobState = 'queued' | 'running' | 'succeeded' | 'failed' | 'unknown' | 'cancelled';
/** The state of an attempt (docs/attempts.md). */
export type AttemptState =
  | 'starting'
  | 'running'
  | 'succeeded'
  | 'failed'
  | 'unknown'
  | 'lost_race'
  | 'abandoned';

/** One attempt of a job, as reads return it. */
export interface AttemptView {
  id: string;
  n: number;
  provider: string;
  state: AttemptState;
  origin: string;
  startedAt: string;
  finishedAt: string | null;
  error: unknown;
  usage?: unknown;
  costMicros?: number | null;
}

/** A job, as reads return it; `I` and `R` type its input and result. */
export interface JobView<I = Record<string, unknown>, R = unknown> {
  id: string;
  operation: string;
  state: JobState;
  version: number;
  idempotencyKey: string;
  input: I;
  result: R | null;
  error: unknown;
  completedBy: string | null;
  attempts: AttemptView[];
  createdAt: string;
  updatedAt: string;
  archivedAt?: string;
}

export interface JobRow {
  id: string;
  owner_id: string;
  idempotency_key: string;
  fingerprint: string;
  operation: string;
  input: Record<string, unknown>;
  state: JobState;
  version: number;
  completed_by: string | null;
  result: unknown;
  error: unknown;
  attempt_count: number;
  traceparent: string | null;
  created_at: Date;
  updated_at: Date;
  finished_at: Date | null;
  /** Built by ATTEMPTS_JSON; absent when the query did not ask for attempts. */
  attempts?: AttemptView[];
}

export const JOB_COLUMNS =
  'id, owner_id, idempotency_key, fingerprint, operation, input, state, version, completed_by, result, error, attempt_count, traceparent, created_at, updated_at, finished_at';

/** SQL expression: the attempts of job `jobIdExpr` as a JSON array in the public shape. */
export const attemptsJson = (jobIdExpr: string) => `(
  SELECT coalesce(jsonb_agg(jsonb_build_object(
    'id', a.id, 'n', a.n, 'provider', a.provider, 'state', a.state, 'origin', a.origin,
    'startedAt', to_char(a.started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'finishedAt', to_char(a.finished_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'error', a.error, 'usage', a.usage, 'costMicros', a.cost_micros) ORDER BY a.n), '[]'::jsonb)
  FROM onejob.attempts a WHERE a.job_id = ${jobIdExpr})`;

export function jobView(row: JobRow): JobView {
  return {
    id: row.id,
    operation: row.operation,
    state: row.state,
    version: row.version,
    idempotencyKey: row.idempotency_key,
    input: row.input,
    result: row.result ?? null,
    error: row.error ?? null,
    completedBy: row.completed_by,
    attempts: row.attempts ?? [],
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export const TERMINAL_JOB_STATES: readonly JobState[] = ['succeeded', 'failed', 'cancelled'];
/** States in which a job waits for nothing automatic: terminal, or unknown (needs resolution). */
export const SETTLED_JOB_STATES: readonly JobState[] = ['succeeded', 'failed', 'cancelled', 'unknown'];
