import type { ReverseTransferBody } from '../contract/index.js';
import type { Queryable } from '../db/createPool.js';
import { sqlState, UNIQUE_VIOLATION } from '../db/sqlstate.js';
import { OnejobError } from '../errors/OnejobError.js';
import { checkInstant, checkTransferId, type InstantInput } from './checkTransferRequest.js';
import { amountOutOfRange, differentFields } from './createTransfer.js';
import { refuseReservedTransferId } from './reservedNames.js';
import { TRANSFER_COLUMNS, type TransferRow, type TransferView, transferView } from './transferView.js';

/**
 * The transfer to reverse (`transferId`), and what `POST /v1/ledger/transfers/{id}/reverse`
 * is sent (src/contract): the id of the compensating transfer, chosen by the client like
 * any transfer id, and why.
 */
export type ReverseTransferRequest = Omit<ReverseTransferBody, 'effectiveAt'> & {
  ownerId: string;
  transferId: string;
  effectiveAt?: InstantInput;
};

/** The reversal, and whether it already existed. */
export interface ReverseTransferResult {
  transfer: TransferView;
  replayed: boolean;
}

export const REASON_MAX = 1000;

// The compensating transfer mirrors the original (accounts swapped, same amount and
// currency) and names it in `reverses`. UNIQUE (owner_id, reverses) makes a second
// reversal fail whatever the race; a retry of the same reversal (same id) replays.
const REVERSE_SQL = `
WITH original AS (
  SELECT * FROM onejob.ledger_transfers WHERE owner_id = $1 AND id = $2
)
INSERT INTO onejob.ledger_transfers
  (owner_id, id, debit_account, credit_account, amount, currency, reference, effective_at, reverses, reason)
SELECT owner_id, $3, credit_account, debit_account, amount, currency, reference, $5, id, $4 FROM original
ON CONFLICT (owner_id, id) DO NOTHING
RETURNING ${TRANSFER_COLUMNS}`;

const READ_SQL = `SELECT ${TRANSFER_COLUMNS} FROM onejob.ledger_transfers WHERE owner_id = $1 AND id = $2`;
const READ_REVERSAL_SQL = `SELECT ${TRANSFER_COLUMNS} FROM onejob.ledger_transfers WHERE owner_id = $1 AND reverses = $2`;

/**
 * Reverses a transfer with a new, mirrored transfer linked to it. The original stays as
 * it was; both are listed, and balances as of any instant before the reversal are unchanged.
 *
 * @example
 * ```ts
 * await reverseTransfer(pool, { ownerId: 'acme', transferId: 'order-42:payment', id: 'order-42:refund', reason: 'refund' });
 * ```
 */
export async function reverseTransfer(
  db: Queryable,
  req: ReverseTransferRequest,
): Promise<ReverseTransferResult> {
  const transferId = checkTransferId(req.transferId, 'transfer id');
  const id = checkTransferId(req.id);
  // Attempt costs are the engine's record of work done: a tenant cannot undo them.
  refuseReservedTransferId(transferId, 'transfer id');
  refuseReservedTransferId(id, 'id');
  if (typeof req.reason !== 'string' || req.reason.length < 1 || req.reason.length > REASON_MAX) {
    throw new OnejobError(
      'request_invalid',
      `reason must be 1 to ${REASON_MAX} characters: say what changed`,
    );
  }
  const effectiveAt = checkInstant(req.effectiveAt, 'effectiveAt');
  const same = (row: TransferRow) =>
    row.reverses === transferId &&
    row.reason === req.reason &&
    (row.effective_at?.getTime() ?? null) === (effectiveAt?.getTime() ?? null);

  let rows: TransferRow[];
  try {
    ({ rows } = await db.query<TransferRow>(REVERSE_SQL, [
      req.ownerId,
      transferId,
      id,
      req.reason,
      effectiveAt,
    ]));
  } catch (error) {
    if (sqlState(error) !== UNIQUE_VIOLATION) throw amountOutOfRange(error) ?? error;
    // Another reversal of this transfer exists. If it is this very request (a concurrent
    // retry under the same id), it is a replay; otherwise the transfer is already reversed.
    // (Inside a caller's transaction the error aborted it, the read fails and we say 409.)
    const { rows: found } = await db
      .query<TransferRow>(READ_REVERSAL_SQL, [req.ownerId, transferId])
      .catch(() => ({ rows: [] as TransferRow[] }));
    const reversal = found[0];
    if (reversal && reversal.id === id && same(reversal))
      return { transfer: transferView(reversal), replayed: true };
    throw alreadyReversed(transferId, reversal);
  }
  if (rows[0]) return { transfer: transferView(rows[0]), replayed: false };

  const existing = (await db.query<TransferRow>(READ_SQL, [req.ownerId, id])).rows[0];
  if (existing) {
    if (same(existing)) return { transfer: transferView(existing), replayed: true };
    throw differentFields(id, existing);
  }
  throw new OnejobError('transfer_not_found', `There is no transfer ${transferId} to reverse.`);
}

function alreadyReversed(transferId: string, reversal: TransferRow | undefined): OnejobError {
  return new OnejobError(
    'transfer_already_reversed',
    `Transfer ${transferId} was already reversed${reversal ? ` by transfer ${reversal.id}` : ''}; a transfer is reversed at most once.`,
    reversal ? { reversedBy: reversal.id } : undefined,
  );
}
