import type { Queryable } from '../db/createPool.js';
import { createGroupCommit, type GroupCommitOptions, groupByKey, type Pending } from '../db/groupCommit.js';
import type { OperationRegistry } from '../operations/operationRegistry.js';
import {
  type CreateJobRequest,
  type CreateJobResult,
  createPrepared,
  type PreparedCreate,
  prepareCreate,
  reusedKey,
} from './createJob.js';
import { createJobsBatch } from './createJobsBatch.js';
import { jobView } from './jobView.js';

export interface JobBatcherOptions extends GroupCommitOptions {
  /** Called once per batch statement, with its size and whether it fell back to one row at a time. */
  onBatch?: (batch: { size: number; fellBack: boolean; error?: unknown }) => void;
}

export interface JobBatcher {
  /** `createJob` through a shared batch: the same answer the request would have had alone. */
  create(req: CreateJobRequest): Promise<CreateJobResult>;
}

type Waiter = Pending<PreparedCreate, CreateJobResult>;

/**
 * Group commit for intake (src/db/groupCommit.ts): concurrent creates share one statement
 * and one commit, and each request gets the answer it would have had alone.
 */
export function createJobBatcher(
  db: Queryable,
  operations: OperationRegistry,
  options: JobBatcherOptions = {},
): JobBatcher {
  // Batches of one: every request is its own createJob statement, with no queue in front.
  if ((options.maxBatchSize ?? 64) <= 1) {
    return { create: async (req) => createPrepared(db, prepareCreate(operations, req)) };
  }

  const runBatch = async (waiters: Waiter[]): Promise<void> => {
    // Identical keys in one batch (a double-click storm) are one request to the database:
    // the first of each key is sent, the others are answered from its outcome.
    const leaders = groupByKey(waiters, (w) => `${w.item.req.ownerId}\u0000${w.item.req.idempotencyKey}`);
    let outcome: Awaited<ReturnType<typeof createJobsBatch>>;
    try {
      outcome = await createJobsBatch(
        db,
        leaders.map((g) => g[0]!.item),
      );
    } catch (error) {
      // One bad row (an archival racing this statement trips the archived-key trigger,
      // input PostgreSQL refuses) must not fail the others: each goes alone.
      options.onBatch?.({ size: waiters.length, fellBack: true, error });
      await Promise.all(leaders.map(settleAlone));
      return;
    }
    options.onBatch?.({ size: waiters.length, fellBack: false });
    const alone: Waiter[][] = [];
    leaders.forEach((group, i) => {
      const row = outcome[i];
      if (!row) {
        alone.push(group);
        return;
      }
      const job = jobView(row);
      // The body the key names: this batch's first request if it created the job.
      const print = row.created ? group[0]!.item.print : row.fingerprint;
      group.forEach((w, j) => {
        if (w.item.print !== print) w.reject(reusedKey(w.item.req.idempotencyKey, job.id));
        else w.resolve({ job, replayed: !(row.created && j === 0) });
      });
    });
    await Promise.all(alone.map(settleAlone));
  };

  // One key's requests in arrival order, each its own statement, as if they came one by one.
  const settleAlone = async (group: Waiter[]): Promise<void> => {
    for (const w of group) {
      try {
        w.resolve(await createPrepared(db, w.item));
      } catch (error) {
        w.reject(error);
      }
    }
  };

  const queue = createGroupCommit<PreparedCreate, CreateJobResult>((batch) => runBatch(batch), options);
  return {
    create(req) {
      // Validation happens here, before the request joins anything: a 422 is its own.
      let prepared: PreparedCreate;
      try {
        prepared = prepareCreate(operations, req);
      } catch (error) {
        return Promise.reject(error);
      }
      return queue.submit(prepared);
    },
  };
}
