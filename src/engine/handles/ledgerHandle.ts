// onejob.ledger: the append-only ledger, every call able to join your transaction. Every
// method takes one request object naming its owner, and `{ tx }` as its second argument.
import type { AccountParams, IdParams } from '../../contract/index.js';
import type { Queryable } from '../../db/createPool.js';
import type { InstantInput, TransferRequest } from '../../ledger/checkTransferRequest.js';
import {
  type CreatePendingTransferResult,
  createPendingTransfer,
  type PendingTransferRequest,
} from '../../ledger/createPendingTransfer.js';
import { type CreateTransferResult, createTransfer } from '../../ledger/createTransfer.js';
import type { TransferBatcher } from '../../ledger/createTransferBatcher.js';
import { type Balance, getBalance } from '../../ledger/getBalance.js';
import { getTransfer } from '../../ledger/getTransfer.js';
import { type AccountPage, type ListAccountsQuery, listAccounts } from '../../ledger/listAccounts.js';
import { type EntryPage, type ListEntriesQuery, listEntries } from '../../ledger/listEntries.js';
import type { PendingTransferView } from '../../ledger/pendingTransferView.js';
import {
  getPendingTransfer,
  type PostPendingTransferRequest,
  postPendingTransfer,
  type ResolvePendingTransferResult,
  type VoidPendingTransferRequest,
  voidPendingTransfer,
} from '../../ledger/resolvePendingTransfer.js';
import {
  type ReverseTransferRequest,
  type ReverseTransferResult,
  reverseTransfer,
} from '../../ledger/reverseTransfer.js';
import type { TransferView } from '../../ledger/transferView.js';
import type { TxOption } from '../engineDeps.js';

/** One owner's transfer, by the id the client chose (the path of its route). */
export type GetTransferRequest = { ownerId: string } & IdParams;

/** One owner's account, optionally as recorded at or before `asOf` (default now). */
export type AccountRequest = { ownerId: string; asOf?: InstantInput } & AccountParams;

/** `onejob.ledger`: the append-only double-entry ledger (see docs/ledger.md). */
export interface LedgerHandle {
  /** Records a transfer; the same id with the same fields replays, with different fields is `transfer_exists_with_different_fields`. */
  createTransfer(req: TransferRequest, options?: TxOption): Promise<CreateTransferResult>;
  /** A new, mirrored transfer linked to the original, at most once. */
  reverseTransfer(req: ReverseTransferRequest, options?: TxOption): Promise<ReverseTransferResult>;
  /** Holds an amount without moving it (an authorisation); idempotent by id like createTransfer. */
  createPendingTransfer(
    req: PendingTransferRequest,
    options?: TxOption,
  ): Promise<CreatePendingTransferResult>;
  /** Moves at most the held amount (default all of it) under the pending transfer's id and releases the rest, once. */
  postPendingTransfer(
    req: PostPendingTransferRequest,
    options?: TxOption,
  ): Promise<ResolvePendingTransferResult>;
  /** Releases all a pending transfer holds, once. */
  voidPendingTransfer(
    req: VoidPendingTransferRequest,
    options?: TxOption,
  ): Promise<ResolvePendingTransferResult>;
  /** One pending transfer and how it was resolved; `pending_transfer_not_found` otherwise. */
  getPendingTransfer(req: GetTransferRequest, options?: TxOption): Promise<PendingTransferView>;
  /** One transfer; another owner's is `transfer_not_found`. */
  getTransfer(req: GetTransferRequest, options?: TxOption): Promise<TransferView>;
  /** An account's balance as recorded at or before `asOf` (default now). */
  getBalance(req: AccountRequest, options?: TxOption): Promise<Balance>;
  /** The owner's accounts with their balances as recorded at or before `asOf`, by name, one page at a time. */
  listAccounts(req: { ownerId: string } & ListAccountsQuery, options?: TxOption): Promise<AccountPage>;
  /** An account's entries, oldest first, one page at a time. */
  listEntries(req: AccountRequest & Omit<ListEntriesQuery, 'asOf'>, options?: TxOption): Promise<EntryPage>;
}

/**
 * Without `{ tx }`, transfers go through `transfers` (group commit) when given; with it,
 * the caller's transaction decides, so the transfer is written there alone.
 */
export function createLedgerHandle(deps: {
  pool: Queryable;
  transferBatcher?: TransferBatcher;
}): LedgerHandle {
  const { pool, transferBatcher: transfers } = deps;
  return {
    createTransfer: (req, o) =>
      o?.tx || !transfers ? createTransfer(o?.tx ?? pool, req) : transfers.create(req),
    reverseTransfer: (req, o) => reverseTransfer(o?.tx ?? pool, req),
    createPendingTransfer: (req, o) => createPendingTransfer(o?.tx ?? pool, req),
    postPendingTransfer: (req, o) => postPendingTransfer(o?.tx ?? pool, req),
    voidPendingTransfer: (req, o) => voidPendingTransfer(o?.tx ?? pool, req),
    getPendingTransfer: ({ ownerId, id }, o) => getPendingTransfer(o?.tx ?? pool, ownerId, id),
    getTransfer: ({ ownerId, id }, o) => getTransfer(o?.tx ?? pool, ownerId, id),
    getBalance: ({ ownerId, account, asOf }, o) => getBalance(o?.tx ?? pool, ownerId, account, asOf),
    listAccounts: ({ ownerId, ...query }, o) => listAccounts(o?.tx ?? pool, ownerId, query),
    listEntries: ({ ownerId, account, ...query }, o) => listEntries(o?.tx ?? pool, ownerId, account, query),
  };
}
