import type { Queryable } from '../db/createPool.js';
import { OnejobError } from '../errors/OnejobError.js';
import { jobEventRowsSql } from '../events/jobEventRows.js';
import { attemptsJson, JOB_COLUMNS, type JobRow, jobColumns } from './jobView.js';
import type { PreparedCreate } from './prepareCreate.js';

// Job intake's one statement: a set of requests (a single one for a create alone or in a
// caller's transaction, createJob.ts) in one statement and one commit. Each new job's
// `created` event (one row of the event log) comes from the same statement (events/jobEventRows.ts).
// The requests travel as one JSON array (one JSON.stringify in Node, instead of ten arrays
// whose every element the driver escapes), each numbered by its position (ord) so every
// result row names the request it answers. Keys already taken answer from `existing`;
// tombstoned keys are left out of the INSERT (they would trip the archived-key trigger and
// fail the whole statement) and, like a key lost to a concurrent commit, come back without
// a row: the caller settles those one at a time. Rows are inserted in key order so two
// batches sharing keys wait on each other's unique-index entries in the same order, never
// in a cycle. Keys are looked up one request at a time (LATERAL, and OFFSET 0 so PostgreSQL
// cannot turn the lookups back into a join): PostgreSQL guesses 100 rows for
// json_to_recordset, and a plan made while the jobs table was small, which a session keeps,
// would otherwise hash the whole jobs and tombstones tables for every batch
// (test/db/queryPlans.test.ts). Sent as a named prepared statement: parsing and planning
// this CTE on every request cost the database about as much as executing it.
// A job with runAt becomes claimable then: run_after is the later of runAt and now
// (greatest ignores a NULL runAt), so a past runAt queues the job now, in the order of
// its intake, never ahead of the jobs already waiting.
export const CREATE_BATCH_STATEMENT = 'onejob_create_jobs_batch';
export const CREATE_BATCH_SQL = `
WITH req AS (
  SELECT * FROM json_to_recordset($1::json) AS r(
    ord int, id uuid, owner_id text, idempotency_key text, fingerprint text, operation text,
    input jsonb, run_at timestamptz, traceparent text, event_id uuid, data jsonb)
), existing AS (
  SELECT r.ord, ${jobColumns('j')}
  FROM req r CROSS JOIN LATERAL (
    SELECT * FROM onejob.jobs j
    WHERE j.owner_id = r.owner_id AND j.idempotency_key = r.idempotency_key OFFSET 0
  ) j
), inserted AS (
  INSERT INTO onejob.jobs (id, owner_id, idempotency_key, fingerprint, operation, input, run_at, run_after, traceparent)
  SELECT r.id, r.owner_id, r.idempotency_key, r.fingerprint, r.operation, r.input, r.run_at,
         greatest(r.run_at, now()), r.traceparent
  FROM req r
  WHERE NOT EXISTS (SELECT 1 FROM existing e WHERE e.ord = r.ord)
    AND NOT EXISTS (SELECT 1 FROM onejob.job_tombstones t
                    WHERE t.owner_id = r.owner_id AND t.idempotency_key = r.idempotency_key OFFSET 0)
  ORDER BY r.owner_id, r.idempotency_key
  ON CONFLICT (owner_id, idempotency_key) DO NOTHING
  RETURNING ${JOB_COLUMNS}
), created AS (
  SELECT r.event_id, i.id AS job_id, i.owner_id, NULL::uuid AS attempt_id, 'created'::text AS type, r.data,
         'onejob.job.created'::text AS publish, r.traceparent
  FROM inserted i JOIN req r ON r.id = i.id
), ${jobEventRowsSql('created')}
SELECT r.ord, true AS created, '[]'::jsonb AS attempts, i.*
FROM inserted i JOIN req r ON r.id = i.id
UNION ALL
SELECT e.ord, false AS created, ${attemptsJson('e.id')} AS attempts, ${jobColumns('e')}
FROM existing e`;

export type BatchRow = JobRow & { ord: number; created: boolean };

/**
 * What the batch statement said about each request, in input order: the row that answers
 * it, or undefined when the request must be settled on its own (a tombstoned key, or a
 * key another transaction committed after this statement's snapshot).
 */
export type BatchOutcome = (BatchRow | undefined)[];

/**
 * Runs the batch statement for requests with distinct (owner, key) and checks its answer
 * row by row: each row names one request, no request is answered twice, a created row is
 * the job that request asked for, and an existing row carries that request's key.
 */
export async function createJobsBatch(
  db: Queryable,
  batch: readonly PreparedCreate[],
): Promise<BatchOutcome> {
  const n = batch.length;
  const requests = batch.map((p, i) => ({
    ord: i + 1,
    id: p.id,
    owner_id: p.req.ownerId,
    idempotency_key: p.req.idempotencyKey,
    fingerprint: p.print,
    operation: p.req.operation,
    input: p.req.input,
    run_at: p.runAt?.toISOString() ?? null,
    traceparent: p.req.traceparent ?? null,
    event_id: p.eventId,
    data: p.data,
  }));
  const { rows } = await db.query<BatchRow>({
    name: CREATE_BATCH_STATEMENT,
    text: CREATE_BATCH_SQL,
    values: [JSON.stringify(requests)],
  });
  const outcome: BatchOutcome = new Array(n).fill(undefined);
  for (const row of rows) {
    const i = row.ord - 1;
    const p = batch[i];
    const problem = !p
      ? `a row for request ${row.ord} of ${n}`
      : outcome[i]
        ? `two rows for request ${row.ord}`
        : row.created && row.id !== p.id
          ? `created job ${row.id} for request ${row.ord}, which asked for ${p.id}`
          : row.owner_id !== p.req.ownerId || row.idempotency_key !== p.req.idempotencyKey
            ? `a job of another key for request ${row.ord}`
            : undefined;
    if (problem) throw new OnejobError('internal_error', `The intake batch statement returned ${problem}.`);
    outcome[i] = row;
  }
  return outcome;
}
