import type { Queryable } from '../db/createPool.js';
import { createGroupCommit, type GroupCommitOptions, groupByKey, type Pending } from '../db/groupCommit.js';
import type { CheckedTransfer, TransferRequest } from './checkTransferRequest.js';
import {
  type CreateTransferResult,
  checkTenantTransfer,
  differentFields,
  insertTransfer,
  sameTransfer,
} from './createTransfer.js';
import { createTransfersBatch } from './createTransfersBatch.js';
import { transferView } from './transferView.js';

export interface TransferBatcherOptions extends GroupCommitOptions {
  /** Called once per batch, with its size and whether it fell back to one transfer at a time. */
  onBatch?: (batch: { size: number; fellBack: boolean; error?: unknown }) => void;
}

export interface TransferBatcher {
  /** `createTransfer` through a shared batch: the same answer the request would have had alone. */
  create(req: TransferRequest): Promise<CreateTransferResult>;
}

type Waiter = Pending<CheckedTransfer, CreateTransferResult>;

/**
 * Group commit for ledger transfers (src/db/groupCommit.ts). Validation happens before a
 * request joins a batch, so a 400 is its own. The same id twice in a batch is sent once
 * and the others are answered as retries of it. If the batch fails (a currency that
 * differs from an account's, an amount past the totals limit, a deadlock), every request
 * goes alone and gets its own answer, so none is failed by another.
 */
export function createTransferBatcher(db: Queryable, options: TransferBatcherOptions = {}): TransferBatcher {
  if ((options.maxBatchSize ?? 64) <= 1) {
    return { create: async (req) => insertTransfer(db, checkTenantTransfer(req)) };
  }

  const settleAlone = async (group: Waiter[]): Promise<void> => {
    for (const w of group) {
      try {
        w.resolve(await insertTransfer(db, w.item));
      } catch (error) {
        w.reject(error);
      }
    }
  };

  const runBatch = async (waiters: Waiter[]): Promise<void> => {
    const leaders = groupByKey(waiters, (w) => `${w.item.ownerId}\u0000${w.item.id}`);
    let outcome: Awaited<ReturnType<typeof createTransfersBatch>>;
    try {
      outcome = await createTransfersBatch(
        db,
        leaders.map((g) => g[0]!.item),
      );
    } catch (error) {
      options.onBatch?.({ size: waiters.length, fellBack: true, error });
      await Promise.all(leaders.map(settleAlone));
      return;
    }
    options.onBatch?.({ size: waiters.length, fellBack: false });
    const alone: Waiter[][] = [];
    leaders.forEach((group, i) => {
      const created = outcome.inserted[i];
      const row = created ?? outcome.existing[i];
      if (!row) {
        alone.push(group);
        return;
      }
      const transfer = transferView(row);
      group.forEach((w, j) => {
        if (!sameTransfer(row, w.item)) w.reject(differentFields(w.item.id, row));
        else w.resolve({ transfer, replayed: !(created && j === 0) });
      });
    });
    await Promise.all(alone.map(settleAlone));
  };

  const queue = createGroupCommit<CheckedTransfer, CreateTransferResult>(runBatch, options);
  return {
    create(req) {
      let checked: CheckedTransfer;
      try {
        checked = checkTenantTransfer(req);
      } catch (error) {
        return Promise.reject(error);
      }
      return queue.submit(checked);
    },
  };
}
