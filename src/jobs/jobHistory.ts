// A job's history as operators and the dashboard read it: the audit trail, and the public
// events with their delivery state per publisher. Owner-scoped like every job read.
import type { JobDelivery, JobEvent } from '../contract/index.js';
import type { Queryable } from '../db/createPool.js';
import { OnejobError } from '../errors/OnejobError.js';

const ISO = (col: string) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

// Oldest first: everything that happened, races and abandons included, and the start of
// each attempt, read from its attempt row (onejob.job_history, migration 0021). Ordered by
// time, then by the log's order; an attempt starts before what its own transaction
// records. `seq` is the entry's position in this job's trail (1, 2, 3...), never the
// log's global sequence, which would tell a tenant how busy every other tenant is.
const EVENTS_SQL = `
SELECT id, (row_number() OVER (ORDER BY created_at, seq NULLS FIRST, id))::text AS seq, type,
       attempt_id AS "attemptId", data, ${ISO('created_at')} AS "createdAt"
FROM onejob.job_history WHERE job_id = $1 AND owner_id = $2
ORDER BY created_at, seq NULLS FIRST, id`;

// Each public event of the job, for each registered publisher: its delivery row if it has
// one (a refused try, a retry, an event held behind one, a dead letter, or a row from
// before migration 0021), else published if the publisher's position is past it
// (onejob.event_behind, docs/outbox.md), else pending, with the publisher's last error
// while it cannot reach its broker. A publisher's position records no time per event:
// such a delivery has no publishedAt. With no publisher registered yet,
// an event shows as waiting (no deliveries).
const DELIVERIES_SQL = `
SELECT e.id, (row_number() OVER (ORDER BY e.seq))::text AS seq, e.publish AS type, ${ISO('e.created_at')} AS "createdAt",
       coalesce((
         SELECT jsonb_agg(jsonb_build_object(
           'publisher', p.name,
           'state', coalesce(d.state, CASE WHEN onejob.event_behind(e.xid, e.seq, p.done, p.window_end, p.window_seq)
                                           THEN 'published' ELSE 'pending' END),
           'attempts', coalesce(d.attempts, 0), 'replays', coalesce(d.replays, 0),
           'lastError', CASE WHEN d.event_id IS NOT NULL THEN d.last_error
                             WHEN NOT onejob.event_behind(e.xid, e.seq, p.done, p.window_end, p.window_seq)
                             THEN p.last_error END,
           'publishedAt', ${ISO('d.published_at')},
           'deadAt', ${ISO('d.dead_at')})
           ORDER BY p.name)
         FROM onejob.outbox_publishers p
         LEFT JOIN onejob.outbox_retries d ON d.event_id = e.id AND d.owner_id = e.owner_id AND d.publisher = p.name
       ), '[]'::jsonb) AS deliveries
FROM onejob.job_events e
WHERE e.job_id = $1 AND e.owner_id = $2 AND e.publish IS NOT NULL
ORDER BY e.seq`;

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
  const { rows } = await db.query<JobEventView>(EVENTS_SQL, [job.id, ownerId]);
  return rows;
}

/** The job's public events and how far each got with each publisher, oldest first. */
export async function listJobDeliveries(
  db: Queryable,
  ownerId: string,
  jobId: string,
): Promise<JobDeliveryView[]> {
  const job = await ownedJob(db, ownerId, jobId);
  const { rows } = await db.query<JobDeliveryView>(DELIVERIES_SQL, [job.id, ownerId]);
  return rows;
}
