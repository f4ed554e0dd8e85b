import { type BatcherOptions, createBatcher } from '../db/createBatcher.js';
import type { Queryable } from '../db/createPool.js';
import type { OperationRegistry } from '../operations/operationRegistry.js';
import { answerCreate, type CreateJobResult, createPrepared } from './createJob.js';
import { type BatchRow, createJobsBatch } from './createJobsBatch.js';
import { type CreateJobRequest, type PreparedCreate, prepareCreate } from './prepareCreate.js';

export type JobBatcherOptions = BatcherOptions;

export interface JobBatcher {
  /** `createJob` through a shared batch: the same answer the request would have had alone. */
  create(req: CreateJobRequest): Promise<CreateJobResult>;
}

/**
 * Group commit for intake (src/db/createBatcher.ts): concurrent creates share one statement
 * and one commit, and each request gets the answer it would have had alone. The same key
 * twice in a batch is written once; the others are its replays (or a 409 for another body).
 * A key the statement could not answer (tombstoned, or committed after its snapshot) and
 * every request of a batch that failed (an archival racing it, input PostgreSQL refuses)
 * go alone, as a batch of one.
 */
export function createJobBatcher(
  db: Queryable,
  operations: OperationRegistry,
  options: JobBatcherOptions = {},
): JobBatcher {
  const batcher = createBatcher<PreparedCreate, BatchRow, CreateJobResult>(
    {
      key: (p) => `${p.req.ownerId}\u0000${p.req.idempotencyKey}`,
      write: (batch) => createJobsBatch(db, batch),
      answer: answerCreate,
      alone: (p) => createPrepared(db, p),
    },
    options,
  );
  return {
    create(req) {
      // Validation happens here, before the request joins anything: a 422 is its own.
      let prepared: PreparedCreate;
      try {
        prepared = prepareCreate(operations, req);
      } catch (error) {
        return Promise.reject(error);
      }
      return batcher.submit(prepared);
    },
  };
}
