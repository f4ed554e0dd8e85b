import { v7 as uuidv7 } from 'uuid';
import type { Queryable } from '../db/createPool.js';
import { ARCHIVED_KEY, sqlState } from '../db/sqlstate.js';
import { OnejobError } from '../errors/OnejobError.js';
import { cloudEvent } from '../events/cloudEvent.js';
import { jobEventRowsSql } from '../events/jobEventRows.js';
import type { OperationRegistry } from '../operations/operationRegistry.js';
import { fingerprint } from './fingerprint.js';
import { attemptsJson, JOB_COLUMNS, type JobRow, type JobView, jobView } from './jobView.js';
import { findTombstone } from './tombstones.js';

/** A job to create: the owner, the idempotency key of the intent, the operation and its input. */
export interface CreateJobRequest {
  ownerId: string;
  idempotencyKey: string;
  operation: string;
  input: Record<string, unknown>;
  traceparent?: string | null;
}

/** The job for the key, and whether it already existed. */
export interface CreateJobResult {
  job: JobView;
  /** True when the key already named a job with the same request: nothing new was written. */
  replayed: boolean;
}

// One round trip for both outcomes. `existing` answers a replay from this statement's
// snapshot; otherwise the INSERT either creates the job (and, in the same statement,
// its audit row and outbox event) or meets a row committed after our snapshot, in which
// case ON CONFLICT DO NOTHING returns nothing and the caller reads that row.
// Sent as a named prepared statement: parsing and planning this CTE on every request
// cost the database about as much as executing it. Exported for the benchmark, which
// issues this exact statement without HTTP as the raw limit.
export const CREATE_STATEMENT = 'onejob_create_job';
export const CREATE_SQL = `
WITH existing AS (
  SELECT ${JOB_COLUMNS} FROM onejob.jobs WHERE owner_id = $2 AND idempotency_key = $3
), inserted AS (
  INSERT INTO onejob.jobs (id, owner_id, idempotency_key, fingerprint, operation, input, traceparent)
  SELECT $1, $2, $3, $4, $5, $6::jsonb, $7 WHERE NOT EXISTS (SELECT 1 FROM existing)
  ON CONFLICT (owner_id, idempotency_key) DO NOTHING
  RETURNING ${JOB_COLUMNS}
), created AS (
  SELECT $8::uuid AS event_id, id AS job_id, owner_id, NULL::uuid AS attempt_id, 'created'::text AS type,
         $9::jsonb AS data, 'onejob.job.created'::text AS publish, $10::jsonb AS event
  FROM inserted
), ${jobEventRowsSql('created')}
SELECT true AS created, '[]'::jsonb AS attempts, i.* FROM inserted i
UNION ALL
SELECT false AS created, ${attemptsJson('e.id')} AS attempts, e.* FROM existing e`;

const READ_BY_KEY_SQL = `
SELECT false AS created, ${attemptsJson('j.id')} AS attempts, ${JOB_COLUMNS}
FROM onejob.jobs j WHERE owner_id = $1 AND idempotency_key = $2`;

/** Throws the problem a request deserves before anything is written. */
export function checkCreateRequest(operations: OperationRegistry, req: CreateJobRequest): void {
  const operation = operations.get(req.operation);
  if (!operation) {
    throw new OnejobError('operation_unknown', `Operation "${req.operation}" is not configured.`, {
      operations: operations.names(),
    });
  }
  const problems = operation.checkInput(req.input);
  if (problems.length > 0) {
    throw new OnejobError('input_invalid', problems.map((p) => `${p.path} ${p.message}`).join('; '), {
      errors: problems,
    });
  }
}

/** A validated request with everything its INSERT needs, computed once, before any batching. */
export interface PreparedCreate {
  req: CreateJobRequest;
  print: string;
  id: string;
  eventId: string;
  data: Record<string, unknown>;
  event: Record<string, unknown>;
}

/** Validates `req` (throwing its 422) and computes its fingerprint, ids and created event. */
export function prepareCreate(operations: OperationRegistry, req: CreateJobRequest): PreparedCreate {
  checkCreateRequest(operations, req);
  return prepareChecked(req);
}

/** `prepareCreate` for a request `checkCreateRequest` has already passed. */
export function prepareChecked(req: CreateJobRequest): PreparedCreate {
  const print = fingerprint(req);
  const id = uuidv7();
  const eventId = uuidv7();
  const data = {
    jobId: id,
    operation: req.operation,
    idempotencyKey: req.idempotencyKey,
    state: 'queued',
    version: 1,
  };
  const event = cloudEvent({
    id: eventId,
    type: 'onejob.job.created',
    subject: id,
    data,
    time: new Date(),
    traceparent: req.traceparent,
  }) as unknown as Record<string, unknown>;
  return { req, print, id, eventId, data, event };
}

/**
 * Creates the job for (owner, key), or returns the job the key already names. The
 * database decides: UNIQUE (owner_id, idempotency_key), never a check-then-insert.
 * Pass a client inside your own transaction to commit the job with your own rows.
 */
export async function createJob(
  db: Queryable,
  operations: OperationRegistry,
  req: CreateJobRequest,
): Promise<CreateJobResult> {
  return createPrepared(db, prepareCreate(operations, req));
}

/** `createJob` for a request `prepareCreate` already checked: one statement of its own. */
export async function createPrepared(db: Queryable, p: PreparedCreate): Promise<CreateJobResult> {
  const { req, print } = p;
  let rows: (JobRow & { created: boolean })[];
  try {
    ({ rows } = await db.query<JobRow & { created: boolean }>({
      name: CREATE_STATEMENT,
      text: CREATE_SQL,
      values: [
        p.id,
        req.ownerId,
        req.idempotencyKey,
        print,
        req.operation,
        req.input,
        req.traceparent ?? null,
        p.eventId,
        p.data,
        p.event,
      ],
    }));
  } catch (error) {
    if (sqlState(error) !== ARCHIVED_KEY) throw error;
    rows = [];
  }
  let row = rows[0];
  if (!row) {
    // Lost the race to a transaction that committed after this statement's snapshot,
    // or the key belongs to an archived job. A fresh statement sees either.
    ({ rows } = await db.query<JobRow & { created: boolean }>(READ_BY_KEY_SQL, [
      req.ownerId,
      req.idempotencyKey,
    ]));
    row = rows[0];
  }
  if (!row) {
    const tombstone = await findTombstone(db, req.ownerId, req.idempotencyKey);
    if (!tombstone) throw new Error('job vanished between insert and read; retry the request');
    if (tombstone.fingerprint !== print) throw reusedKey(req.idempotencyKey, tombstone.job.id);
    return { job: tombstone.job, replayed: true };
  }
  if (row.created) return { job: jobView(row), replayed: false };
  if (row.fingerprint !== print) throw reusedKey(req.idempotencyKey, row.id);
  return { job: jobView(row), replayed: true };
}

export function reusedKey(key: string, jobId: string): OnejobError {
  return new OnejobError(
    'idempotency_key_reused',
    `Idempotency key "${key}" already names job ${jobId}, created from a different request body. Use a new key for a new intent.`,
    { jobId },
  );
}
