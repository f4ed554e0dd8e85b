// Rows to the public job representation (contract section 4), typed by the wire contract.

import type { Attempt, Job } from '../contract/index.js';
import type { AttemptState } from '../vocabulary/attemptStates.js';
import type { JobState } from '../vocabulary/jobStates.js';

export type { AttemptState, JobState };

/** One attempt of a job, as reads return it: the wire contract's shape. */
export type AttemptView = Attempt;

/** A job, as reads return it; `I` and `R` type its input and result. The wire contract's shape. */
export type JobView<I = Record<string, unknown>, R = unknown> = Job<I, R>;

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
  /** The instant the job was asked to wait for on intake (migration 0015). */
  run_at: Date | null;
  created_at: Date;
  updated_at: Date;
  finished_at: Date | null;
  /** Built by ATTEMPTS_JSON; absent when the query did not ask for attempts. */
  attempts?: AttemptView[];
}

export const JOB_COLUMNS =
  'id, owner_id, idempotency_key, fingerprint, operation, input, state, version, completed_by, result, error, attempt_count, traceparent, run_at, created_at, updated_at, finished_at';

/** JOB_COLUMNS, each qualified by `alias`. */
export const jobColumns = (alias: string): string =>
  JOB_COLUMNS.split(', ')
    .map((c) => `${alias}.${c}`)
    .join(', ');

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
    runAt: row.run_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export { SETTLED_JOB_STATES, TERMINAL_JOB_STATES } from '../vocabulary/jobStates.js';
