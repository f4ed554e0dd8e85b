import { v7 as uuidv7 } from 'uuid';
import type { Queryable } from '../db/createPool.js';
import { cloudEvent } from './cloudEvent.js';

export interface JobEventInput {
  jobId: string;
  attemptId?: string | null;
  /** Audit type in job_events, for example `created`, `race_lost`, `abandoned`. */
  type: string;
  data?: Record<string, unknown>;
  /** CloudEvent type to publish through the outbox, if the change is public (contract section 5). */
  publish?: string;
  traceparent?: string | null;
}

const RECORD_SQL = `
WITH audit AS (
  INSERT INTO onejob.job_events (id, job_id, attempt_id, type, data) VALUES ($1, $2, $3, $4, $5::jsonb)
)
INSERT INTO onejob.outbox (id, subject, type, event)
SELECT $1, $2::text, $6, $7::jsonb WHERE $6::text IS NOT NULL`;

/**
 * Appends an audit row and, for public changes, the outbox event, in one statement.
 * Call it with the client of the transaction that makes the change.
 */
export async function recordJobEvent(db: Queryable, e: JobEventInput): Promise<string> {
  const id = uuidv7();
  const data = e.data ?? {};
  const event = e.publish
    ? cloudEvent({
        id,
        type: e.publish,
        subject: e.jobId,
        data: { jobId: e.jobId, ...data },
        traceparent: e.traceparent,
      })
    : null;
  await db.query(RECORD_SQL, [id, e.jobId, e.attemptId ?? null, e.type, data, e.publish ?? null, event]);
  return id;
}
