import type { ListJobsQuery as JobsListQuery } from '../contract/index.js';
import type { Queryable } from '../db/createPool.js';
import { OnejobError } from '../errors/OnejobError.js';
import { attemptsJson, JOB_COLUMNS, type JobRow, type JobView, jobView } from './jobView.js';

/** Filters and paging of `jobs.list`: the query of `GET /v1/jobs` (src/contract), and a byte cap. */
export type ListJobsQuery = JobsListQuery & {
  /**
   * Stop the page before the job that would take it past this many bytes of JSON (input,
   * result and errors; at least one job is always returned), counted by PostgreSQL so that
   * jobs past the cap are never read; `nextCursor` then continues after the last job returned.
   */
  maxBytes?: number;
};

/** A page of `jobs.list`; pass `nextCursor` back as `cursor` for the next one. */
export interface JobPage {
  items: JobView[];
  nextCursor: string | null;
}

// The bytes a job adds to a page, counted by PostgreSQL one row at a time: its input,
// result and error as JSON text, and its attempts' errors (which may quote a rejected output).
const JOB_BYTES = `(octet_length(j.input::text) + coalesce(octet_length(j.result::text), 0)
  + coalesce(octet_length(j.error::text), 0)
  + coalesce((SELECT sum(octet_length(a.error::text)) FROM onejob.attempts a WHERE a.job_id = j.id), 0))::bigint`;

// The always-true `created_at IS NOT NULL` is the predicate of the partial index
// jobs_owner_newest (migration 0011): stating it is what lets these probes use the index.
const FILTERS = `j.owner_id = $1 AND j.created_at IS NOT NULL
  AND ($2::text IS NULL OR j.state = $2)
  AND ($5::text IS NULL OR j.idempotency_key = $5)
  AND ($6::text IS NULL OR j.operation = $6)
  AND ($9::boolean IS NOT TRUE OR (j.state = 'queued' AND j.run_at > now()))`;

const FITS = '(w.n = 1 OR $8::bigint IS NULL OR w.total <= $8::bigint)';

// Keyset pagination, newest first: (created_at, id) strictly below the cursor. A page may
// hold 200 jobs of 1 MiB each, so whole rows are never read to be dropped: the walk takes
// one job at a time through the index, sums its size in PostgreSQL (when a byte cap is
// given) and stops after the first job past the cap or past the limit. Only the jobs that
// fit are then read in full, each by its primary key; the row after them, if any, only
// says that there is a next page. The server holds at most one page's bytes, whatever the
// limit and however large the rows.
export const LIST_SQL = `
WITH RECURSIVE walk AS (
  (SELECT j.id, j.created_at, 1 AS n, CASE WHEN $8::bigint IS NULL THEN 0::bigint ELSE ${JOB_BYTES} END AS total
   FROM onejob.jobs j
   WHERE ${FILTERS} AND ($3::timestamptz IS NULL OR (j.created_at, j.id) < ($3::timestamptz, $4::uuid))
   ORDER BY j.created_at DESC, j.id DESC LIMIT 1)
  UNION ALL
  SELECT nx.id, nx.created_at, w.n + 1, w.total + nx.bytes
  FROM walk w CROSS JOIN LATERAL (
    SELECT j.id, j.created_at,
           CASE WHEN $8::bigint IS NULL OR w.n >= $7 THEN 0::bigint ELSE ${JOB_BYTES} END AS bytes
    FROM onejob.jobs j
    WHERE ${FILTERS} AND (j.created_at, j.id) < (w.created_at, w.id)
    ORDER BY j.created_at DESC, j.id DESC LIMIT 1) nx
  WHERE w.n <= $7 AND ${FITS}
)
SELECT w.n, w.created_at::text AS cursor_at, full_row.*
FROM walk w
LEFT JOIN LATERAL (
  SELECT ${attemptsJson('j.id')} AS attempts, ${JOB_COLUMNS.split(', ')
    .map((c) => `j.${c}`)
    .join(', ')}
  FROM onejob.jobs j WHERE j.id = w.id AND w.n <= $7 AND ${FITS}
) full_row ON true
ORDER BY w.n`;

// The cursor keeps PostgreSQL's microseconds; a JavaScript Date would round them to
// milliseconds and skip rows created within the same millisecond.
function encodeCursor(row: JobRow & { cursor_at: string }): string {
  return Buffer.from(`${row.cursor_at}|${row.id}`).toString('base64url');
}

function decodeCursor(cursor: string): [string, string] {
  const [at, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  if (
    !at ||
    !id ||
    !/^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d{1,6})?([+-]\d{2}(:\d{2})?|Z)?$/.test(at) ||
    !/^[0-9a-f-]{36}$/i.test(id)
  ) {
    throw new OnejobError('request_invalid', 'cursor is not one this API returned.', { param: 'cursor' });
  }
  return [at, id];
}

export async function listJobs(db: Queryable, ownerId: string, query: ListJobsQuery): Promise<JobPage> {
  const limit = query.limit ?? 50;
  const [at, id] = query.cursor ? decodeCursor(query.cursor) : [null, null];
  const { rows } = await db.query<(JobRow & { cursor_at: string }) | { id: null; cursor_at: string }>(
    LIST_SQL,
    [
      ownerId,
      query.state ?? null,
      at,
      id,
      query.idempotencyKey ?? null,
      query.operation ?? null,
      limit,
      query.maxBytes ?? null,
      query.waiting === true,
    ],
  );
  const read = rows.filter((r): r is JobRow & { cursor_at: string } => r.id !== null);
  const last = read[read.length - 1];
  return {
    items: read.map(jobView),
    nextCursor: rows.length > read.length && last ? encodeCursor(last) : null,
  };
}
