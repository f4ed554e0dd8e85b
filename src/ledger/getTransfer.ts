import type { Queryable } from '../db/createPool.js';
import { OnejobError } from '../errors/OnejobError.js';
import { checkTransferId } from './checkTransferRequest.js';
import { TRANSFER_COLUMNS, type TransferRow, type TransferView, transferView } from './transferView.js';

const READ_SQL = `SELECT ${TRANSFER_COLUMNS} FROM onejob.ledger_transfers WHERE owner_id = $1 AND id = $2`;

/**
 * One of the owner's transfers; another owner's transfer is not found.
 *
 * @example
 * ```ts
 * const transfer = await getTransfer(pool, 'acme', 'order-42:payment'); // throws transfer_not_found
 * ```
 */
export async function getTransfer(db: Queryable, ownerId: string, id: string): Promise<TransferView> {
  checkTransferId(id);
  const row = (await db.query<TransferRow>(READ_SQL, [ownerId, id])).rows[0];
  if (!row) throw new OnejobError('transfer_not_found', `There is no transfer ${id}.`);
  return transferView(row);
}
