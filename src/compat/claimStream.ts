// The first text an attempt of a compat job produces claims the job's stream: from then
// on only that attempt can complete the job, so what a live stream relays is what the
// job ends with, and no hedged sibling's text ever reaches a client. The claim is the
// abandon's mechanism: the job's version moves on and only the claimer carries the new
// one, so every sibling's completion fails its compare-and-swap and is recorded as a
// lost race. Zero rows: the job has a winner, or a sibling claimed first.
import { v7 as uuidv7 } from 'uuid';
import type { Queryable } from '../db/createPool.js';
import { jobEventRowsSql } from '../events/jobEventRows.js';

const CLAIM_SQL = `
WITH claimed AS (
  UPDATE onejob.jobs j SET version = j.version + 1, updated_at = now()
  FROM onejob.attempts a
  WHERE a.id = $1 AND j.id = a.job_id AND j.version = a.job_version AND j.completed_by IS NULL
    AND a.state IN ('running', 'unknown')
  RETURNING j.id, j.owner_id, j.version
),
carried AS (
  UPDATE onejob.attempts a SET job_version = c.version FROM claimed c WHERE a.id = $1 RETURNING a.id
),
events AS (
  SELECT $2::uuid AS event_id, c.id AS job_id, c.owner_id, $1::uuid AS attempt_id, 'stream_claimed'::text AS type,
         jsonb_build_object('version', c.version) AS data, NULL::text AS publish, NULL::text AS traceparent
  FROM claimed c
), ${jobEventRowsSql('events')}
SELECT job_id FROM events`;

export async function claimStream(db: Queryable, attemptId: string): Promise<boolean> {
  const { rowCount } = await db.query(CLAIM_SQL, [attemptId, uuidv7()]);
  return rowCount === 1;
}
