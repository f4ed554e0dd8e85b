import type { Queryable } from '../db/createPool.js';
import { OnejobError } from '../errors/OnejobError.js';
import { attemptsJson, JOB_COLUMNS, type JobRow, type JobView, jobView } from './jobView.js';

const GET_SQL = `
SELECT ${attemptsJson('j.id')} AS attempts, ${JOB_COLUMNS}
FROM onejob.jobs j WHERE id = $1 AND owner_id = $2`;

const GET_ARCHIVED_SQL = `
SELECT doc, archived_at FROM onejob.jobs_archive WHERE job_id = $1 AND owner_id = $2`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The owner's job, live or archived. Another owner's job is indistinguishable from none. */
export async function findJob(db: Queryable, ownerId: string, id: string): Promise<JobView | undefined> {
  if (!UUID.test(id)) return undefined;
  const { rows } = await db.query<JobRow>(GET_SQL, [id, ownerId]);
  if (rows[0]) return jobView(rows[0]);
  const archived = await db.query<{ doc: JobView; archived_at: Date }>(GET_ARCHIVED_SQL, [id, ownerId]);
  const a = archived.rows[0];
  // Documents archived before runAt existed lack it: none was asked.
  return a ? { ...a.doc, runAt: a.doc.runAt ?? null, archivedAt: a.archived_at.toISOString() } : undefined;
}

export async function getJob(db: Queryable, ownerId: string, id: string): Promise<JobView> {
  const job = await findJob(db, ownerId, id);
  if (!job) throw new OnejobError('job_not_found', `No job ${id} for this owner.`);
  return job;
}
