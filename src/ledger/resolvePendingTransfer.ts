import type { PostPendingTransferBody, VoidPendingTransferBody } from '../contract/index.js';
import type { Queryable } from '../db/createPool.js';
import { CHECK_VIOLATION, POST_EXCEEDS_HOLD, sqlState, UNIQUE_VIOLATION } from '../db/sqlstate.js';
import { OnejobError } from '../errors/OnejobError.js';
import { checkTransferId } from './checkTransferRequest.js';
import { amountOutOfRange } from './createTransfer.js';
import {
  type PendingTransferRow,
  type PendingTransferView,
  pendingTransferView,
  READ_PENDING_SQL,
} from './pendingTransferView.js';
import { refuseReservedTransferId } from './reservedNames.js';
import { REASON_MAX } from './reverseTransfer.js';

/** A request body's fields as the library takes them: each may also be null (left out). */
type OrNull<T> = { [K in keyof T]?: T[K] | null | undefined };

/**
 * Post a pending transfer (`id`; the posted transfer gets the same id): move `amount`
 * (default: all it holds) and release the rest. The body of
 * `POST /v1/ledger/transfers/{id}/post` (src/contract), for the owner.
 */
export type PostPendingTransferRequest = { ownerId: string; id: string } & OrNull<
  NonNullable<PostPendingTransferBody>
>;

/** Void a pending transfer: release all it holds (`POST /v1/ledger/transfers/{id}/void`). */
export type VoidPendingTransferRequest = { ownerId: string; id: string } & OrNull<
  NonNullable<VoidPendingTransferBody>
>;

/** The pending transfer as resolved, and whether this request found it already resolved so. */
export interface ResolvePendingTransferResult {
  pendingTransfer: PendingTransferView;
  replayed: boolean;
}

// The resolution row is the whole write: its triggers release the hold and, for a post,
// record the transfer (migrations/0013_budgets_and_holds.sql). Its primary key decides
// between two resolutions whatever the race; the loser writes nothing and reads the winner.
const RESOLVE_SQL = `
INSERT INTO onejob.ledger_pending_resolutions (owner_id, pending_id, action, amount, reason)
VALUES ($1, $2, $3, $4, $5)
ON CONFLICT (owner_id, pending_id) DO NOTHING
RETURNING pending_id`;

const TRANSFER_EXISTS_SQL = 'SELECT 1 FROM onejob.ledger_transfers WHERE owner_id = $1 AND id = $2';

/**
 * Posts a pending transfer once: records the transfer (same id, `amount` at most the held
 * amount) and releases the rest. The same post again replays; another amount, or a post
 * after a void, is `pending_transfer_already_resolved`.
 */
export async function postPendingTransfer(
  db: Queryable,
  req: PostPendingTransferRequest,
): Promise<ResolvePendingTransferResult> {
  const { ownerId, id } = checkIds(req);
  const reason = checkReason(req.reason);
  const amount = req.amount ?? null;
  if (amount !== null && (typeof amount !== 'number' || !Number.isSafeInteger(amount) || amount < 1)) {
    throw new OnejobError(
      'request_invalid',
      'amount must be a positive integer in minor units, at most the amount held; void the pending transfer to post nothing',
    );
  }
  // The pending row never changes, so its held amount read here is the one the trigger checks.
  const pending = await readPending(db, ownerId, id);
  const held = Number(pending.amount);
  const posted = amount ?? held;
  if (posted > held) throw exceedsHold(id, posted, held);
  return resolve(db, pending, 'post', posted, reason);
}

/** Voids a pending transfer once: releases all it holds. Voiding again replays; voiding a posted one is `pending_transfer_already_resolved`. */
export async function voidPendingTransfer(
  db: Queryable,
  req: VoidPendingTransferRequest,
): Promise<ResolvePendingTransferResult> {
  const { ownerId, id } = checkIds(req);
  const reason = checkReason(req.reason);
  const pending = await readPending(db, ownerId, id);
  return resolve(db, pending, 'void', 0, reason);
}

/** One of the owner's pending transfers, with how it was resolved. */
export async function getPendingTransfer(
  db: Queryable,
  ownerId: string,
  id: string,
): Promise<PendingTransferView> {
  checkTransferId(id);
  return pendingTransferView(await readPending(db, ownerId, id));
}

async function resolve(
  db: Queryable,
  pending: PendingTransferRow,
  action: 'post' | 'void',
  amount: number,
  reason: string | null,
): Promise<ResolvePendingTransferResult> {
  const { owner_id: ownerId, id } = pending;
  let written = false;
  try {
    written = (await db.query(RESOLVE_SQL, [ownerId, id, action, amount, reason])).rows.length === 1;
  } catch (error) {
    if (sqlState(error) === POST_EXCEEDS_HOLD) throw exceedsHold(id, amount, Number(pending.amount));
    // The posted transfer's id was taken by a transfer recorded after the hold.
    if (sqlState(error) === UNIQUE_VIOLATION) {
      throw new OnejobError(
        'transfer_exists_with_different_fields',
        `A transfer ${id} was recorded after the pending transfer ${id}, which cannot be posted under its id; void it.`,
      );
    }
    if (sqlState(error) === CHECK_VIOLATION) throw amountOutOfRange(error) ?? error;
    throw error;
  }
  const now = await readPending(db, ownerId, id);
  const view = pendingTransferView(now);
  if (written) return { pendingTransfer: view, replayed: false };
  const same = now.action === action && (action === 'void' || Number(now.posted_amount) === amount);
  if (!same) {
    const how = now.action === 'post' ? `posted (${now.posted_amount} of ${now.amount})` : 'voided';
    throw new OnejobError(
      'pending_transfer_already_resolved',
      `Pending transfer ${id} was already ${how}; it cannot be ${action === 'post' ? `posted (${amount})` : 'voided'} as well. Nothing was written.`,
      { pendingTransfer: view },
    );
  }
  return { pendingTransfer: view, replayed: true };
}

async function readPending(db: Queryable, ownerId: string, id: string): Promise<PendingTransferRow> {
  const row = (await db.query<PendingTransferRow>(READ_PENDING_SQL, [ownerId, id])).rows[0];
  if (row) return row;
  if ((await db.query(TRANSFER_EXISTS_SQL, [ownerId, id])).rows.length > 0) {
    throw new OnejobError(
      'transfer_not_pending',
      `Transfer ${id} was recorded as a transfer, not as a pending one: it holds nothing to post or void. Reverse it to undo it.`,
    );
  }
  throw new OnejobError('pending_transfer_not_found', `There is no pending transfer ${id}.`);
}

function checkIds(req: { ownerId: string; id: string }) {
  const id = checkTransferId(req.id);
  refuseReservedTransferId(id, 'id');
  return { ownerId: req.ownerId, id };
}

function checkReason(reason: unknown): string | null {
  if (reason === undefined || reason === null) return null;
  if (typeof reason !== 'string' || reason.length > REASON_MAX) {
    throw new OnejobError('request_invalid', `reason must be a string of at most ${REASON_MAX} characters`);
  }
  return reason;
}

const exceedsHold = (id: string, amount: number, held: number) =>
  new OnejobError(
    'pending_amount_exceeds_hold',
    `Pending transfer ${id} holds ${held}; it cannot post ${amount}. Nothing was written.`,
    { heldAmount: held, requestedAmount: amount },
  );
