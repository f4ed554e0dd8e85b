// A job's history as operators and the dashboard read it: the audit trail, and the public
// events with their delivery state per publisher. Owner-scoped like every job read.
import type { JobDelivery, JobEvent } from '../contract/index.js';
import type { Queryable } from '../db/createPool.js';
import { OnejobError } from '../errors/OnejobError.js';

const ISO = (col: string) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

// Oldest first: everything that happened, races and abandons included. `seq` is the
// event's position in this job's trail (1, 2, 3...), never the table's global sequence,
// which would tell a tenant how busy every other tenant is.
const EVENTS_SQL = `
SELECT id, (row_number() OVER (ORDER BY seq))::text AS seq, type, attempt_id AS "attemptId", data, ${ISO('created_at')} AS "createdAt"
FROM onejob.job_events WHERE job_id = $1 ORDER BY seq`;

// Events written before any relay registered a publisher have no delivery rows yet: they
// show as waiting (no deliveries).
const DELIVERIES_SQL = `
SELECT o.id, (row_number() OVER (ORDER BY o.seq))::text AS seq, o.type, ${ISO('o.created_at')} AS "createdAt",
       coalesce(jsonb_agg(jsonb_build_object(
         'publisher', d.publisher, 'state', d.state, 'attempts', d.attempts, 'replays', d.replays,
         'lastError', d.last_error,
         'publishedAt', ${ISO('d.published_at')},
         'deadAt', ${ISO('d.dead_at')})
         ORDER BY d.publisher) FILTER (WHERE d.publisher IS NOT NULL), '[]'::jsonb) AS deliveries
FROM onejob.outbox o
LEFT JOIN onejob.outbox_deliveries d ON d.event_id = o.id
WHERE o.subject = $1
GROUP BY o.id, o.seq, o.type, o.created_at
ORDER BY o.seq`;

// Whose job it is, without reading the job: its input and result may be a megabyte each.
const OWNED_SQL = `
SELECT EXISTS (SELECT 1 FROM onejob.jobs WHERE id = $1 AND owner_id = $2)
    OR EXISTS (SELECT 1 FROM onejob.jobs_archive WHERE job_id = $1 AND owner_id = $2) AS owned`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

async function ownedJob(db: Queryable, ownerId: string, id: string): Promise<{ id: string }> {
  const owned =
    UUID.test(id) && (await db.query<{ owned: boolean }>(OWNED_SQL, [id, ownerId])).rows[0]?.owned;
  if (!owned) throw new OnejobError('job_not_found', `No job ${id} for this owner.`);
  return { id };
}

/** One entry of a job's audit trail (`jobs.events`): the wire contract's shape. */
export type JobEventView = JobEvent;

/** One public event of a job and its delivery state per publisher (`jobs.deliveries`). */
export type JobDeliveryView = JobDelivery;

/** The job's audit trail, oldest first. Another owner's job is `job_not_found`. */
export async function listJobEvents(db: Queryable, ownerId: string, jobId: string): Promise<JobEventView[]> {
  const job = await ownedJob(db, ownerId, jobId);
  const { rows } = await db.query<JobEventView>(EVENTS_SQL, [job.id]);
  return rows;
}

/** The job's public events and how far each got with each publisher, oldest first. */
export async function listJobDeliveries(
  db: Queryable,
  ownerId: string,
  jobId: string,
): Promise<JobDeliveryView[]> {
  const job = await ownedJob(db, ownerId, jobId);
  const { rows } = await db.query<JobDeliveryView>(DELIVERIES_SQL, [job.id]);
  return rows;
}
