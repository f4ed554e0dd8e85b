import { v7 as uuidv7 } from 'uuid';
import type { Queryable } from '../db/createPool.js';
import { jobEventRowsSql } from './jobEventRows.js';

export interface JobEventInput {
  jobId: string;
  attemptId?: string | null;
  /** Audit type in the event log, for example `created`, `race_lost`, `abandoned`. */
  type: string;
  data?: Record<string, unknown>;
  /** CloudEvent type to publish, if the change is public (contract section 5). */
  publish?: string;
  traceparent?: string | null;
}

// The owner is the job's, read by primary key: from the live job, or from the archive for
// an event about an archived job (a client's retry). No owner at all fails the statement
// (owner_id is NOT NULL) instead of writing an event about no job.
const RECORD_SQL = `
WITH events AS (
  SELECT $1::uuid AS event_id, $2::uuid AS job_id,
         coalesce((SELECT owner_id FROM onejob.jobs WHERE id = $2::uuid),
                  (SELECT owner_id FROM onejob.jobs_archive WHERE job_id = $2::uuid)) AS owner_id,
         $3::uuid AS attempt_id, $4::text AS type, $5::jsonb AS data, $6::text AS publish, $7::text AS traceparent
), ${jobEventRowsSql('events')}
SELECT 1`;

/**
 * Appends the event to the log in one statement; for a public change the relay builds its
 * CloudEvent from the row (onejob.cloud_event).
 * Call it with the client of the transaction that makes the change.
 */
export async function recordJobEvent(db: Queryable, e: JobEventInput): Promise<string> {
  const id = uuidv7();
  const data = e.data ?? {};
  await db.query(RECORD_SQL, [
    id,
    e.jobId,
    e.attemptId ?? null,
    e.type,
    data,
    e.publish ?? null,
    e.publish ? (e.traceparent ?? null) : null,
  ]);
  return id;
}
