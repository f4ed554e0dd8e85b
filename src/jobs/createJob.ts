import type { Queryable } from '../db/createPool.js';
import { ARCHIVED_KEY, sqlState } from '../db/sqlstate.js';
import { OnejobError } from '../errors/OnejobError.js';
import type { OperationRegistry } from '../operations/operationRegistry.js';
import { type BatchRow, createJobsBatch } from './createJobsBatch.js';
import { attemptsJson, JOB_COLUMNS, type JobRow, type JobView, jobView } from './jobView.js';
import {
  type CheckedCreate,
  type CreateJobRequest,
  type PreparedCreate,
  prepareCreate,
} from './prepareCreate.js';
import { findTombstone } from './tombstones.js';

export type { CreateJobRequest } from './prepareCreate.js';

/** The job for the key, and whether it already existed. */
export interface CreateJobResult {
  job: JobView;
  /** True when the key already named a job with the same request: nothing new was written. */
  replayed: boolean;
}

const READ_BY_KEY_SQL = `
SELECT false AS created, ${attemptsJson('j.id')} AS attempts, ${JOB_COLUMNS}
FROM onejob.jobs j WHERE owner_id = $1 AND idempotency_key = $2`;

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

/**
 * `createJob` for a request `prepareCreate` already checked: the intake batch statement
 * (createJobsBatch.ts) with this request alone, then, if the statement could not answer
 * it, a read of what the key names now.
 */
export async function createPrepared(db: Queryable, p: PreparedCreate): Promise<CreateJobResult> {
  let row: BatchRow | undefined;
  try {
    [row] = await createJobsBatch(db, [p]);
  } catch (error) {
    // A tombstone committed after the statement's snapshot tripped the archived-key trigger.
    if (sqlState(error) !== ARCHIVED_KEY) throw error;
  }
  return settleCreate(db, p, row);
}

/**
 * The answer a request alone gets from the batch statement's row for it, or, when the
 * statement gave none, from a fresh read of what its key names.
 */
export async function settleCreate(
  db: Queryable,
  p: CheckedCreate,
  row: BatchRow | undefined,
): Promise<CreateJobResult> {
  if (row) return answerCreate(row, p, true);
  // Lost the race to a transaction that committed after the statement's snapshot, or the
  // key belongs to an archived job. A fresh statement sees either.
  const { rows } = await db.query<JobRow & { created: boolean }>(READ_BY_KEY_SQL, [
    p.req.ownerId,
    p.req.idempotencyKey,
  ]);
  if (rows[0]) return answerCreate(rows[0], p, false);
  const tombstone = await findTombstone(db, p.req.ownerId, p.req.idempotencyKey);
  if (!tombstone) throw new Error('job vanished between insert and read; retry the request');
  if (tombstone.fingerprint !== p.print) throw reusedKey(p.req.idempotencyKey, tombstone.job.id);
  return { job: tombstone.job, replayed: true };
}

/**
 * The answer a request gets from the row its key names: the job it created (`first`, and
 * the row was created by the statement), a replay of the same request, or a 409 for a
 * different body under the key.
 */
export function answerCreate(
  row: JobRow & { created: boolean },
  p: CheckedCreate,
  first: boolean,
): CreateJobResult {
  const job = jobView(row);
  // A created row carries the fingerprint of the request that created it.
  if (row.fingerprint !== p.print) throw reusedKey(p.req.idempotencyKey, row.id);
  return { job, replayed: !(row.created && first) };
}

export function reusedKey(key: string, jobId: string): OnejobError {
  return new OnejobError(
    'idempotency_key_reused',
    `Idempotency key "${key}" already names job ${jobId}, created from a different request body. Use a new key for a new intent.`,
    { jobId },
  );
}
