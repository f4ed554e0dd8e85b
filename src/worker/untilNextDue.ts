// When the next waiting job comes due: a job created with a future runAt, or a retry
// waiting out its backoff. An idle worker sleeps until then instead of a whole poll
// interval, so such a job starts within a few milliseconds of its time.
import type { Queryable } from '../db/createPool.js';

// The first entry of the claim's own index (jobs_claimable: queued, by run_after) past now:
// one index tuple, whatever the size of the queue. No operation filter, which could walk
// the index past the jobs of operations this process does not run: such a job costs at
// most one claim that finds nothing, at its time, after which it is due and no longer
// counted here. The delay is computed by PostgreSQL, from the clock the claim compares
// run_after with, so a process clock that differs from the database's changes nothing.
export const UNTIL_NEXT_DUE_SQL = `
SELECT (extract(epoch FROM j.run_after - clock_timestamp()) * 1000)::float8 AS ms
FROM onejob.jobs j
WHERE j.lane = 'queued' AND j.run_after > now()
ORDER BY j.run_after
LIMIT 1`;

/** Milliseconds until the earliest queued job that is not yet due becomes due; undefined when none waits. */
export async function untilNextDue(db: Queryable): Promise<number | undefined> {
  const { rows } = await db.query<{ ms: number }>({
    name: 'onejob-until-next-due',
    text: UNTIL_NEXT_DUE_SQL,
  });
  return rows[0]?.ms;
}
