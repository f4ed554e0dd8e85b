// What a watcher of a job sees change, read without the job's input or result: a live
// view re-reads this on each wake-up and reads the whole job only when it differs.
import type { Queryable } from '../db/createPool.js';
import type { JobState } from '../vocabulary/jobStates.js';

const MARK_SQL = `
SELECT j.state, concat_ws('|', j.state, j.version, j.updated_at, j.completed_by, (
  SELECT string_agg(concat_ws(':', a.n, a.state, a.finished_at), ',' ORDER BY a.n)
  FROM onejob.attempts a WHERE a.job_id = j.id)) AS mark
FROM onejob.jobs j WHERE j.id = $1 AND j.owner_id = $2`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The job's state and a mark that changes whenever its state, version or attempts do. */
export interface JobChangeMark {
  state: JobState;
  mark: string;
}

/** The owner's live job's change mark; undefined when there is none (another owner's, archived). */
export async function jobChangeMark(
  db: Queryable,
  ownerId: string,
  id: string,
): Promise<JobChangeMark | undefined> {
  if (!UUID.test(id)) return undefined;
  const { rows } = await db.query<JobChangeMark>(MARK_SQL, [id, ownerId]);
  return rows[0];
}
