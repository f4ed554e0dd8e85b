// A job settled long ago, as archiving finds one: succeeded `daysAgo` days back and created
// a day before that (archiving walks jobs by creation time, and a job is created before it
// finishes).
import type { Queryable } from '../../src/db/createPool.js';

export async function settleLongAgo(db: Queryable, jobId: string, daysAgo: number): Promise<void> {
  await db.query(
    `UPDATE onejob.jobs SET state = 'succeeded', result = '{"charged": true}', version = version + 1,
       created_at = now() - make_interval(days => $2 + 1),
       finished_at = now() - make_interval(days => $2) WHERE id = $1`,
    [jobId, daysAgo],
  );
}
