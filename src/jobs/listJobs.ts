import type { Queryable } from '../db/createPool.js';
import { OnejobError } from '../errors/OnejobError.js';
import { attemptsJson, JOB_COLUMNS, type JobRow, type JobState, type JobView, jobView } from './jobView.js';

/** Filters and paging of `jobs.list`. */
export interface ListJobsQuery {
  state?: JobState;
  /** 1 to 200, default 50. */
  limit?: number;
  cursor?: string | null;
  /** Exact idempotency key, for finding the job of one intent. */
  idempotencyKey?: string;
  operation?: string;
  /**
   * Stop the page once its jobs take this many bytes as JSON (at least one job is always
   * returned); `nextCursor` then continues after the last job returned.
   */
  maxBytes?: number;
}

/** A page of `jobs.list`; pass `nextCursor` back as `cursor` for the next one. */
export interface JobPage {
  items: JobView[];
  nextCursor: string | null;
}

// Keyset pagination, newest first: (created_at, id) strictly below the cursor. The
// always-true `created_at IS NOT NULL` is the predicate of the partial index
// jobs_owner_newest (migration 0011): stating it is what lets this query use the index.
export const LIST_SQL = `
SELECT ${attemptsJson('j.id')} AS attempts, created_at::text AS cursor_at, ${JOB_COLUMNS}
FROM onejob.jobs j
WHERE owner_id = $1 AND created_at IS NOT NULL
  AND ($2::text IS NULL OR state = $2)
  AND ($3::timestamptz IS NULL OR (created_at, id) < ($3::timestamptz, $4::uuid))
  AND ($5::text IS NULL OR idempotency_key = $5)
  AND ($6::text IS NULL OR operation = $6)
ORDER BY created_at DESC, id DESC
LIMIT $7`;

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
    !/^\d{4}-\d{2}-\d{2}[ T][0-9:.]+([+-][0-9:]+|Z)?$/.test(at) ||
    !/^[0-9a-f-]{36}$/i.test(id)
  ) {
    throw new OnejobError('request_invalid', 'The cursor is not one this API returned.');
  }
  return [at, id];
}

export async function listJobs(db: Queryable, ownerId: string, query: ListJobsQuery): Promise<JobPage> {
  const limit = query.limit ?? 50;
  const [at, id] = query.cursor ? decodeCursor(query.cursor) : [null, null];
  const { rows } = await db.query<JobRow & { cursor_at: string }>(LIST_SQL, [
    ownerId,
    query.state ?? null,
    at,
    id,
    query.idempotencyKey ?? null,
    query.operation ?? null,
    limit + 1,
  ]);
  const items: JobView[] = [];
  let bytes = 0;
  for (const row of rows.slice(0, limit)) {
    const item = jobView(row);
    // Jobs carry inputs and results of up to 1 MiB each: a page of 200 could be hundreds
    // of megabytes, so the page ends early instead.
    if (query.maxBytes !== undefined) {
      bytes += Buffer.byteLength(JSON.stringify(item));
      if (bytes > query.maxBytes && items.length > 0) break;
    }
    items.push(item);
  }
  const more = rows.length > items.length;
  const last = rows[items.length - 1];
  return { items, nextCursor: more && last ? encodeCursor(last) : null };
}
