// Ledger rows to their public representation (contract section 4, Ledger).
import type { Transfer } from '../contract/index.js';
import { OnejobError } from '../errors/OnejobError.js';

/** A recorded transfer: the wire contract's shape. */
export type TransferView = Transfer;

/** The columns a pending transfer and a transfer both have: who moves what between which accounts. */
export interface MovementRow {
  owner_id: string;
  id: string;
  debit_account: string;
  credit_account: string;
  amount: string;
  currency: string;
  reference: string | null;
}

/** What a transfer's row and each of its entries' rows both say of it. */
export type RecordedRow = Pick<MovementRow, 'amount' | 'currency' | 'reference'> & {
  effective_at: Date | null;
  /** ISO 8601 with microseconds, formatted by PostgreSQL (see isoMicros). */
  recorded_at: string;
  reverses: string | null;
  reason: string | null;
};

export type TransferRow = MovementRow & RecordedRow;

/**
 * SQL: a timestamptz as ISO 8601 UTC with microseconds. A JavaScript Date keeps only
 * milliseconds, and an asOf rounded to the millisecond could include a transfer recorded
 * in the same millisecond after the read.
 */
export const isoMicros = (column: string) =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

export const TRANSFER_COLUMNS = `owner_id, id, debit_account, credit_account, amount, currency, reference, effective_at,
  ${isoMicros('recorded_at')} AS recorded_at, reverses, reason`;

export function transferView(row: TransferRow): TransferView {
  return {
    id: row.id,
    debitAccount: row.debit_account,
    creditAccount: row.credit_account,
    ...recordedView(row),
  };
}

/** What a transfer and each of its entries both say of it, as the contract names it. */
export function recordedView(row: RecordedRow) {
  return {
    amount: toAmount(row.amount),
    currency: row.currency,
    reference: row.reference,
    effectiveAt: row.effective_at?.toISOString() ?? row.recorded_at,
    recordedAt: row.recorded_at,
    reverses: row.reverses,
    reason: row.reason,
  };
}

/**
 * bigint and numeric arrive from pg as strings. The database keeps every account's
 * debits and credits within JavaScript's safe integers (ledger_account_totals_safe), so
 * this only refuses sums written before that guard existed: a clear 422, never a RangeError.
 */
export function toAmount(value: string | number): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n))
    throw new OnejobError(
      'ledger_amount_out_of_range',
      `A ledger amount (${value}) exceeds ${Number.MAX_SAFE_INTEGER} (2^53 - 1); it was recorded before the ledger refused such transfers.`,
    );
  return n;
}

/**
 * SQL: a LATERAL join giving `held_debits` and `held_credits` of the account `a.account`.
 * Now (`asOfParam` null): the held totals the pending transfers' triggers keep per account
 * (one row, whatever the number of holds). As of an instant: the pending transfers
 * recorded by then and not posted or voided by then, read from the rows themselves.
 */
export const heldAtSql = (asOfParam: string) => `LEFT JOIN LATERAL (
  SELECT ${heldSideSql(asOfParam, 'debit')},
         ${heldSideSql(asOfParam, 'credit')}
) h ON true`;

/** One side of heldAtSql: `held_debits` or `held_credits`. */
const heldSideSql = (
  asOfParam: string,
  side: 'debit' | 'credit',
) => `CASE WHEN ${asOfParam}::timestamptz IS NULL THEN
           (SELECT coalesce(max(t.pending_${side}s), 0) FROM onejob.ledger_account_totals t
            WHERE t.owner_id = a.owner_id AND t.account = a.account)
         ELSE
           (SELECT coalesce(sum(p.amount), 0) FROM onejob.ledger_pending_transfers p
            WHERE p.owner_id = a.owner_id AND p.${side}_account = a.account AND p.recorded_at <= at.as_of
              AND NOT EXISTS (SELECT 1 FROM onejob.ledger_pending_resolutions r
                              WHERE r.owner_id = p.owner_id AND r.pending_id = p.id AND r.recorded_at <= at.as_of))
         END::text AS held_${side}s`;

/**
 * SQL: the select list of an AccountSumsRow, for an account `a` as of `at.as_of` joined by
 * accountSumsJoins. A balance and a page of accounts sum alike.
 */
export const ACCOUNT_SUMS_COLUMNS = `a.account, a.currency, ${isoMicros('at.as_of')} AS as_of,
       coalesce(sum(e.amount) FILTER (WHERE e.side = 'debit'), 0)::text AS debits,
       coalesce(sum(e.amount) FILTER (WHERE e.side = 'credit'), 0)::text AS credits,
       h.held_debits, h.held_credits`;

/** SQL: after the join that picks the accounts `a`, their entries up to `at.as_of` and held sums, per account. */
export const accountSumsJoins = (asOfParam: string) => `LEFT JOIN onejob.ledger_entries e
  ON e.owner_id = a.owner_id AND e.account = a.account AND e.recorded_at <= at.as_of
${heldAtSql(asOfParam)}
GROUP BY a.account, a.currency, at.as_of, h.held_debits, h.held_credits`;

/** An account row with its posted and held sums, as the balance queries read it (bigints as text). */
export interface AccountSumsRow {
  account: string;
  currency: string;
  as_of: string;
  debits: string;
  credits: string;
  held_debits: string;
  held_credits: string;
}

/** The sums of one account row: posted, held and what is available (see the Balance schema). */
export function accountSums(row: AccountSumsRow) {
  const debits = toAmount(row.debits);
  const credits = toAmount(row.credits);
  const heldDebits = toAmount(row.held_debits);
  const heldCredits = toAmount(row.held_credits);
  const balance = credits - debits;
  return { balance, debits, credits, heldDebits, heldCredits, available: balance - heldDebits };
}
