import type { Queryable } from '../db/createPool.js';
import { OnejobError } from '../errors/OnejobError.js';
import { attemptsJson, type JobRow, type JobView, jobColumns, jobView } from './jobView.js';

// Reads of jobs by id, live or archived, for a set of (owner, id) pairs in one statement:
// concurrent `GET /v1/jobs/{id}` share it (createJobReader.ts), and a read alone is a batch
// of one. Each pair is joined to jobs on (id, owner_id), the primary key, and only where no
// live job matched, to jobs_archive on the same two columns: a request sees only its own
// owner's job whatever else shares the statement, and another owner's job is the same
// "none" as no job at all. Looked up one pair at a time (LATERAL, OFFSET 0) so a plan kept
// from small tables still probes the keys (test/db/queryPlans.test.ts).
export const FIND_BY_IDS_STATEMENT = 'onejob_find_jobs_by_id';
export const FIND_BY_IDS_SQL = `
SELECT r.ord::int AS ord, j.*, a.doc AS archived_doc, a.archived_at
FROM unnest($1::text[], $2::uuid[]) WITH ORDINALITY AS r(owner_id, id, ord)
LEFT JOIN LATERAL (
  SELECT ${attemptsJson('x.id')} AS attempts, ${jobColumns('x')}
  FROM onejob.jobs x WHERE x.id = r.id AND x.owner_id = r.owner_id OFFSET 0
) j ON true
LEFT JOIN LATERAL (
  SELECT x.doc, x.archived_at
  FROM onejob.jobs_archive x WHERE j.id IS NULL AND x.job_id = r.id AND x.owner_id = r.owner_id OFFSET 0
) a ON true
WHERE j.id IS NOT NULL OR a.doc IS NOT NULL`;

export interface JobRef {
  ownerId: string;
  id: string;
}

type FoundRow = Partial<JobRow> & { ord: number; archived_doc: JobView | null; archived_at: Date | null };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `id` can name a job at all; anything else is "no such job" without a query. */
export const isJobId = (id: string): boolean => UUID.test(id);

/**
 * Each owner's job, live or archived, in input order; null where the owner has none by
 * that id (another owner's job included). Ids must pass `isJobId`.
 */
export async function findJobsById(db: Queryable, refs: readonly JobRef[]): Promise<(JobView | null)[]> {
  const { rows } = await db.query<FoundRow>({
    name: FIND_BY_IDS_STATEMENT,
    text: FIND_BY_IDS_SQL,
    values: [refs.map((r) => r.ownerId), refs.map((r) => r.id)],
  });
  const found: (JobView | null)[] = new Array(refs.length).fill(null);
  for (const row of rows) {
    const i = row.ord - 1;
    const ref = refs[i];
    const view = row.id ? jobView(row as JobRow) : archivedView(row);
    const owner = row.id ? row.owner_id : undefined;
    if (
      !ref ||
      found[i] ||
      view.id.toLowerCase() !== ref.id.toLowerCase() ||
      (owner && owner !== ref.ownerId)
    ) {
      throw new OnejobError(
        'internal_error',
        `The job read returned a row that request ${row.ord} did not ask for.`,
      );
    }
    found[i] = view;
  }
  return found;
}

function archivedView(row: FoundRow): JobView {
  const doc = row.archived_doc!;
  // Documents archived before runAt existed lack it: none was asked.
  return { ...doc, runAt: doc.runAt ?? null, archivedAt: row.archived_at!.toISOString() };
}
