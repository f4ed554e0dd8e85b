import type { Queryable } from '../db/createPool.js';
import { FOREIGN_KEY_VIOLATION, sqlState } from '../db/sqlstate.js';
import { OnejobError } from '../errors/OnejobError.js';
import type { CheckedTransfer, TransferRequest } from './checkTransferRequest.js';
import { amountOutOfRange, checkTenantTransfer, currencyMismatch } from './createTransfer.js';
import {
  PENDING_COLUMNS,
  type PendingTransferRow,
  type PendingTransferView,
  pendingTransferView,
  READ_PENDING_SQL,
} from './pendingTransferView.js';

/** A pending transfer to record: a transfer's fields, without effectiveAt (a hold has none). */
export type PendingTransferRequest = Omit<TransferRequest, 'effectiveAt'>;

/** The pending transfer for the id, and whether it already existed. */
export interface CreatePendingTransferResult {
  pendingTransfer: PendingTransferView;
  /** True when the id already named a pending transfer with the same fields: nothing was written. */
  replayed: boolean;
}

// One statement: the hold, then its accounts (created on first use with its currency, as
// for transfers; the currency foreign keys are checked at the end of the statement). Its
// id is also the id of the transfer its post will record, so an id a transfer already
// has is refused here (a transfer recorded with it meanwhile makes the post a 409). The
// primary key decides between two holds with one id; the loser reads the winner's row.
const CREATE_PENDING_SQL = `
WITH p AS (
  INSERT INTO onejob.ledger_pending_transfers (owner_id, id, debit_account, credit_account, amount, currency, reference)
  SELECT $1, $2, $3, $4, $5, $6, $7
  WHERE NOT EXISTS (SELECT 1 FROM onejob.ledger_transfers t WHERE t.owner_id = $1 AND t.id = $2)
  ON CONFLICT (owner_id, id) DO NOTHING
  RETURNING *
), accounts AS (
  INSERT INTO onejob.ledger_accounts (owner_id, account, currency)
  SELECT p.owner_id, a.account, p.currency
  FROM p CROSS JOIN LATERAL (VALUES (p.debit_account), (p.credit_account)) AS a (account)
  ORDER BY a.account
  ON CONFLICT DO NOTHING
)
SELECT ${PENDING_COLUMNS} FROM p LEFT JOIN onejob.ledger_pending_resolutions r ON false`;

/**
 * Holds `amount` from `debitAccount` to `creditAccount` without moving it: the account's
 * `heldDebits` grow and its `available` shrinks until the hold is posted (at most the held
 * amount moves, the rest is released) or voided. Like a card authorisation before its
 * capture. The id is the idempotency key, as for transfers, and the posted transfer's id.
 *
 * @example
 * ```ts
 * await createPendingTransfer(pool, {
 *   ownerId: 'acme', id: 'order-42:authorisation', debitAccount: 'customer:cus_1',
 *   creditAccount: 'revenue', amount: 5000, currency: 'USD',
 * });
 * await postPendingTransfer(pool, { ownerId: 'acme', id: 'order-42:authorisation', amount: 4200 });
 * ```
 */
export async function createPendingTransfer(
  db: Queryable,
  req: PendingTransferRequest,
): Promise<CreatePendingTransferResult> {
  if ((req as TransferRequest).effectiveAt != null) {
    throw new OnejobError(
      'request_invalid',
      'effectiveAt is not taken by a pending transfer; its post is recorded when it happens',
    );
  }
  const t = checkTenantTransfer(req);
  let row: PendingTransferRow | undefined;
  try {
    row = (
      await db.query<PendingTransferRow>(CREATE_PENDING_SQL, [
        t.ownerId,
        t.id,
        t.debitAccount,
        t.creditAccount,
        t.amount,
        t.currency,
        t.reference,
      ])
    ).rows[0];
  } catch (error) {
    if (sqlState(error) === FOREIGN_KEY_VIOLATION) throw await currencyMismatch(db, t);
    throw amountOutOfRange(error) ?? error;
  }
  if (row) return { pendingTransfer: pendingTransferView(row), replayed: false };
  const existing = (await db.query<PendingTransferRow>(READ_PENDING_SQL, [t.ownerId, t.id])).rows[0];
  if (!existing) {
    throw new OnejobError(
      'transfer_exists_with_different_fields',
      `Transfer ${t.id} already exists as a posted transfer; a pending transfer needs an id of its own.`,
    );
  }
  if (!samePending(existing, t)) {
    throw new OnejobError(
      'transfer_exists_with_different_fields',
      `Pending transfer ${t.id} already exists with different fields. A retry must resend the same fields; a new hold needs a new id.`,
      { pendingTransfer: pendingTransferView(existing) },
    );
  }
  return { pendingTransfer: pendingTransferView(existing), replayed: true };
}

function samePending(row: PendingTransferRow, t: CheckedTransfer): boolean {
  return (
    row.debit_account === t.debitAccount &&
    row.credit_account === t.creditAccount &&
    Number(row.amount) === t.amount &&
    row.currency === t.currency &&
    row.reference === t.reference
  );
}
