import { type BatcherOptions, createBatcher } from '../db/createBatcher.js';
import type { Queryable } from '../db/createPool.js';
import type { OperationRegistry } from '../operations/operationRegistry.js';
import { answerCreate, type CreateJobResult, createPrepared } from './createJob.js';
import { type BatchOutcome, type BatchRow, createJobsBatch } from './createJobsBatch.js';
import { findJobsByKey } from './findJobsByKey.js';
import { type CheckedCreate, type CreateJobRequest, checkCreate, withIds } from './prepareCreate.js';
import { ReplayShare } from './replayShare.js';

export type JobBatcherOptions = BatcherOptions;

export interface JobBatcher {
  /** `createJob` through a shared batch: the same answer the request would have had alone. */
  create(req: CreateJobRequest): Promise<CreateJobResult>;
}

/**
 * Group commit for intake (src/db/createBatcher.ts): concurrent creates share one batch,
 * and each request gets the answer it would have had alone. While recent batches held
 * replays, a batch first reads the jobs its keys already name in one read-only statement
 * (findJobsByKey.ts): those requests are replays (or a 409 for another body) and cost no
 * ids, events or intake work. The other keys, and only they, go to the intake statement
 * (createJobsBatch.ts) together. While recent batches held none, the look-up would be a
 * round trip that finds nothing, and the batch goes straight to the intake statement,
 * which answers an existing key all the same (its `existing` member) and writes nothing
 * for it (ReplayShare).
 * The same key twice in a batch is read or written once; the others are its replays. A
 * key the statement could not answer (tombstoned, or committed after its snapshot) and
 * every request of a batch that failed (an archival racing it, input PostgreSQL refuses)
 * go alone, as a batch of one.
 */
export function createJobBatcher(
  db: Queryable,
  operations: OperationRegistry,
  options: JobBatcherOptions = {},
): JobBatcher {
  const replays = new ReplayShare();
  const batcher = createBatcher<CheckedCreate, BatchRow, CreateJobResult>(
    {
      key: (p) => `${p.req.ownerId}\u0000${p.req.idempotencyKey}`,
      write: (batch) => replayOrCreate(db, batch, replays),
      answer: answerCreate,
      alone: (p) => createPrepared(db, withIds(p)),
    },
    options,
  );
  return {
    create(req) {
      // Validation happens here, before the request joins anything: a 422 is its own.
      let checked: CheckedCreate;
      try {
        checked = checkCreate(operations, req);
      } catch (error) {
        return Promise.reject(error);
      }
      return batcher.submit(checked);
    },
  };
}

/** The existing job of each key that has one; the intake statement for the rest. */
async function replayOrCreate(
  db: Queryable,
  batch: CheckedCreate[],
  replays: ReplayShare,
): Promise<BatchOutcome> {
  if (!replays.lookUpFirst) {
    const written = await createJobsBatch(
      db,
      batch.map((p) => withIds(p)),
    );
    replays.record(written.filter((row) => row && !row.created).length, batch.length);
    return written;
  }
  const outcome = await findJobsByKey(
    db,
    batch.map((p) => p.req),
  );
  const missing: number[] = [];
  outcome.forEach((row, i) => {
    if (!row) missing.push(i);
  });
  replays.record(batch.length - missing.length, batch.length);
  if (missing.length === 0) return outcome;
  // A key created between the look-up and this statement is found by its `existing`.
  const written = await createJobsBatch(
    db,
    missing.map((i) => withIds(batch[i]!)),
  );
  missing.forEach((i, k) => {
    outcome[i] = written[k];
  });
  return outcome;
}
