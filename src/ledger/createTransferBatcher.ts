import { type BatcherOptions, createBatcher } from '../db/createBatcher.js';
import type { Queryable } from '../db/createPool.js';
import type { CheckedTransfer, TransferRequest } from './checkTransferRequest.js';
import {
  answerTransfer,
  type CreateTransferResult,
  checkTenantTransfer,
  insertTransfer,
  type TransferOutcome,
  writeTransfers,
} from './createTransfer.js';

export type TransferBatcherOptions = BatcherOptions;

export interface TransferBatcher {
  /** `createTransfer` through a shared batch: the same answer the request would have had alone. */
  create(req: TransferRequest): Promise<CreateTransferResult>;
}

/**
 * Group commit for ledger transfers (src/db/createBatcher.ts). Validation happens before a
 * request joins a batch, so a 400 is its own. The same id twice in a batch is sent once
 * and the others are answered as retries of it. If the batch fails (a currency that
 * differs from an account's, an amount past the totals limit, a deadlock), every request
 * goes alone and gets its own answer, so none is failed by another.
 */
export function createTransferBatcher(db: Queryable, options: TransferBatcherOptions = {}): TransferBatcher {
  const batcher = createBatcher<CheckedTransfer, TransferOutcome, CreateTransferResult>(
    {
      key: (t) => `${t.ownerId}\u0000${t.id}`,
      write: (batch) => writeTransfers(db, batch),
      answer: answerTransfer,
      alone: (t) => insertTransfer(db, t),
    },
    options,
  );
  return {
    create(req) {
      let checked: CheckedTransfer;
      try {
        checked = checkTenantTransfer(req);
      } catch (error) {
        return Promise.reject(error);
      }
      return batcher.submit(checked);
    },
  };
}
