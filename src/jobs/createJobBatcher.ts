import type { Queryable } from '../db/createPool.js';
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

export interface JobBatcherOptions {
  /** Most requests in one batch statement; a full batch goes at once. 1 sends each alone. Default 64. */
  maxBatchSize?: number;
  /** Longest a request waits for others while a batch is already in flight. Default 1 ms. */
  maxWaitMs?: number;
  /** Batch statements in flight at once; further requests gather until one returns. Default 4. */
  maxInFlight?: number;
  /** Called once per batch statement, with its size and whether it fell back to one row at a time. */
  onBatch?: (batch: { size: number; fellBack: boolean; error?: unknown }) => void;
}

export interface JobBatcher {
  /** `createJob` through a shared batch: the same answer the request would have had alone. */
  create(req: CreateJobRequest): Promise<CreateJobResult>;
}

interface Waiter {
  prepared: PreparedCreate;
  resolve: (result: CreateJobResult) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit for intake. A request that finds no batch in flight is sent at once
 * (alone, or with whatever arrived in the same tick), so a quiet service adds no delay.
 * While batches are in flight, requests gather until `maxBatchSize` wait, `maxWaitMs`
 * passes, or a batch returns, and then go as one statement and one commit.
 */
export function createJobBatcher(
  db: Queryable,
  operations: OperationRegistry,
  options: JobBatcherOptions = {},
): JobBatcher {
  const maxBatchSize = options.maxBatchSize ?? 64;
  const maxWaitMs = options.maxWaitMs ?? 1;
  const maxInFlight = options.maxInFlight ?? 4;
  // Batches of one: every request is its own createJob statement, with no queue in front.
  if (maxBatchSize <= 1) return { create: async (req) => createPrepared(db, prepareCreate(operations, req)) };
  let queue: Waiter[] = [];
  let inFlight = 0;
  let timer: NodeJS.Timeout | undefined;
  let scheduled = false;

  const flush = () => {
    if (timer) {
      clearTimeout(timer);
      timer = undefined;
    }
    while (queue.length > 0 && inFlight < maxInFlight) {
      const batch = queue.length <= maxBatchSize ? queue : queue.slice(0, maxBatchSize);
      queue = queue.length <= maxBatchSize ? [] : queue.slice(maxBatchSize);
      inFlight++;
      void runBatch(batch).finally(() => {
        inFlight--;
        // What gathered while this batch was in flight goes now.
        if (queue.length > 0) flush();
      });
    }
  };

  const runBatch = async (waiters: Waiter[]): Promise<void> => {
    // Identical keys in one batch (a double-click storm) are one request to the database:
    // the first of each key is sent, the others are answered from its outcome.
    const groups = new Map<string, Waiter[]>();
    for (const w of waiters) {
      const k = `${w.prepared.req.ownerId}\u0000${w.prepared.req.idempotencyKey}`;
      const group = groups.get(k);
      if (group) group.push(w);
      else groups.set(k, [w]);
    }
    const leaders = [...groups.values()];
    let outcome: Awaited<ReturnType<typeof createJobsBatch>>;
    try {
      outcome = await createJobsBatch(
        db,
        leaders.map((g) => g[0]!.prepared),
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
      const print = row.created ? group[0]!.prepared.print : row.fingerprint;
      group.forEach((w, j) => {
        if (w.prepared.print !== print) w.reject(reusedKey(w.prepared.req.idempotencyKey, job.id));
        else w.resolve({ job, replayed: !(row.created && j === 0) });
      });
    });
    await Promise.all(alone.map(settleAlone));
  };

  // One key's requests in arrival order, each its own statement, as if they came one by one.
  const settleAlone = async (group: Waiter[]): Promise<void> => {
    for (const w of group) {
      try {
        w.resolve(await createPrepared(db, w.prepared));
      } catch (error) {
        w.reject(error);
      }
    }
  };

  return {
    create(req) {
      // Validation happens here, before the request joins anything: a 422 is its own.
      let prepared: PreparedCreate;
      try {
        prepared = prepareCreate(operations, req);
      } catch (error) {
        return Promise.reject(error);
      }
      return new Promise<CreateJobResult>((resolve, reject) => {
        queue.push({ prepared, resolve, reject });
        if (inFlight === 0) {
          if (!scheduled) {
            scheduled = true;
            queueMicrotask(() => {
              scheduled = false;
              flush();
            });
          }
        } else if (queue.length >= maxBatchSize) flush();
        else timer ??= setTimeout(flush, maxWaitMs);
      });
    },
  };
}
