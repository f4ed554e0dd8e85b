// Ledger rows to their public representation (contract section 4, Ledger).

export interface TransferView {
  id: string;
  debitAccount: string;
  creditAccount: string;
  /** Integer minor units of `currency`. */
  amount: number;
  currency: string;
  reference: string | null;
  /** Business time: as the client stated it, else the time it was recorded. */
  effectiveAt: string;
  /** When the ledger learnt of the transfer; as-of queries filter on this. */
  recordedAt: string;
  /** On a reversal: the transfer it compensates. */
  reverses: string | null;
  reason: string | null;
}

export interface TransferRow {
  owner_id: string;
  id: string;
  debit_account: string;
  credit_account: string;
  amount: string;
  currency: string;
  reference: string | null;
  effective_at: Date | null;
  recorded_at: Date;
  reverses: string | null;
  reason: string | null;
}

export const TRANSFER_COLUMNS =
  'owner_id, id, debit_account, credit_account, amount, currency, reference, effective_at, recorded_at, reverses, reason';

export function transferView(row: TransferRow): TransferView {
  return {
    id: row.id,
    debitAccount: row.debit_account,
    creditAccount: row.credit_account,
    amount: toAmount(row.amount),
    currency: row.currency,
    reference: row.reference,
    effectiveAt: (row.effective_at ?? row.recorded_at).toISOString(),
    recordedAt: row.recorded_at.toISOString(),
    reverses: row.reverses,
    reason: row.reason,
  };
}

/** bigint and numeric arrive from pg as strings; amounts are kept within JavaScript's safe integers. */
export function toAmount(value: string | number): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n))
    throw new RangeError(`ledger amount ${value} exceeds Number.MAX_SAFE_INTEGER`);
  return n;
}
