// Pending transfers and their resolutions to their public representation (docs/ledger.md).
import type { PendingTransfer } from '../contract/index.js';
import { isoMicros, type MovementRow, toAmount } from './transferView.js';

/** A pending transfer and how it was resolved: the wire contract's shape. */
export type PendingTransferView = PendingTransfer;

export interface PendingTransferRow extends MovementRow {
  recorded_at: string;
  action: 'post' | 'void' | null;
  posted_amount: string | null;
  resolved_at: string | null;
  reason: string | null;
}

/** SQL: a pending transfer `p` and its resolution `r` (LEFT JOIN), as PendingTransferRow. */
export const PENDING_COLUMNS = `p.owner_id, p.id, p.debit_account, p.credit_account, p.amount, p.currency,
  p.reference, ${isoMicros('p.recorded_at')} AS recorded_at, r.action, r.amount AS posted_amount,
  CASE WHEN r.recorded_at IS NULL THEN NULL ELSE ${isoMicros('r.recorded_at')} END AS resolved_at, r.reason`;

export const READ_PENDING_SQL = `
SELECT ${PENDING_COLUMNS}
FROM onejob.ledger_pending_transfers p
LEFT JOIN onejob.ledger_pending_resolutions r ON r.owner_id = p.owner_id AND r.pending_id = p.id
WHERE p.owner_id = $1 AND p.id = $2`;

export function pendingTransferView(row: PendingTransferRow): PendingTransferView {
  return {
    id: row.id,
    debitAccount: row.debit_account,
    creditAccount: row.credit_account,
    amount: toAmount(row.amount),
    currency: row.currency,
    reference: row.reference,
    recordedAt: row.recorded_at,
    status: row.action === 'post' ? 'posted' : row.action === 'void' ? 'voided' : 'pending',
    postedAmount: row.action === 'post' && row.posted_amount !== null ? toAmount(row.posted_amount) : null,
    resolvedAt: row.resolved_at,
    reason: row.reason,
  };
}
