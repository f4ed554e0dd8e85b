// onejob.ledger: the append-only ledger, every write able to join your transaction.
import type { Queryable } from '../db/createPool.js';
import type { TxOption } from '../engine/engineDeps.js';
import type { TransferRequest } from '../ledger/checkTransferRequest.js';
import { type CreateTransferResult, createTransfer } from '../ledger/createTransfer.js';
import { type Balance, getBalance } from '../ledger/getBalance.js';
import { getTransfer } from '../ledger/getTransfer.js';
import { type EntryPage, type ListEntriesQuery, listEntries } from '../ledger/listEntries.js';
import {
  type ReverseTransferRequest,
  type ReverseTransferResult,
  reverseTransfer,
} from '../ledger/reverseTransfer.js';
import type { TransferView } from '../ledger/transferView.js';

export interface LedgerHandle {
  /** Records a transfer; the same id with the same fields replays, with different fields is `transfer_exists_with_different_fields`. */
  createTransfer(req: TransferRequest, options?: TxOption): Promise<CreateTransferResult>;
  /** A new, mirrored transfer linked to the original, at most once. */
  reverseTransfer(req: ReverseTransferRequest, options?: TxOption): Promise<ReverseTransferResult>;
  getTransfer(ownerId: string, id: string, options?: TxOption): Promise<TransferView>;
  getBalance(
    ownerId: string,
    account: string,
    options?: TxOption & { asOf?: Date | string | null },
  ): Promise<Balance>;
  listEntries(ownerId: string, account: string, query?: ListEntriesQuery & TxOption): Promise<EntryPage>;
}

export function createLedgerHandle(pool: Queryable): LedgerHandle {
  return {
    createTransfer: (req, o) => createTransfer(o?.tx ?? pool, req),
    reverseTransfer: (req, o) => reverseTransfer(o?.tx ?? pool, req),
    getTransfer: (ownerId, id, o) => getTransfer(o?.tx ?? pool, ownerId, id),
    getBalance: (ownerId, account, o) => getBalance(o?.tx ?? pool, ownerId, account, o?.asOf),
    listEntries: (ownerId, account, query = {}) => {
      const { tx, ...rest } = query;
      return listEntries(tx ?? pool, ownerId, account, rest);
    },
  };
}
