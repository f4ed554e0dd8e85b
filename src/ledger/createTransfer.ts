import type { Queryable } from '../db/createPool.js';
import { CHECK_VIOLATION, FOREIGN_KEY_VIOLATION, sqlState } from '../db/sqlstate.js';
import { OnejobError } from '../errors/OnejobError.js';
import { type CheckedTransfer, checkTransferRequest, type TransferRequest } from './checkTransferRequest.js';
import { createTransferAlone, createTransfersBatch, type TransfersOutcome } from './createTransfersBatch.js';
import { refuseReservedAccount, refuseReservedTransferId } from './reservedNames.js';
import { type TransferRow, type TransferView, transferView } from './transferView.js';

/** The transfer for the id, and whether it already existed. */
export interface CreateTransferResult {
  transfer: TransferView;
  /** True when the id already named a transfer with the same fields: nothing was written. */
  replayed: boolean;
}

const READ_CURRENCIES_SQL = `
SELECT account, currency FROM onejob.ledger_accounts WHERE owner_id = $1 AND account = ANY($2::text[])`;

/**
 * Records a transfer of `amount` from `debitAccount` to `creditAccount`, or returns the
 * transfer its id already names. The id is the idempotency key: the same id with the same
 * fields replays, with different fields it is a conflict. The database decides
 * (primary key on (owner, id)), never a check-then-insert.
 *
 * @example
 * ```ts
 * const { transfer, replayed } = await createTransfer(pool, {
 *   ownerId: 'acme',
 *   id: 'order-42:payment',
 *   debitAccount: 'customer:cus_1',
 *   creditAccount: 'revenue',
 *   amount: 1999,
 *   currency: 'USD',
 * });
 * ```
 */
export async function createTransfer(db: Queryable, req: TransferRequest): Promise<CreateTransferResult> {
  return insertTransfer(db, checkTenantTransfer(req));
}

/**
 * A tenant's transfer request, checked: its fields, and none of onejob's own names.
 * Accounts usage:* and provider:* and ids attempt-cost:* are the engine's
 * (reserved_namespace); a transfer that would take an account's debits or credits past
 * 2^53 - 1 is refused later, by the database (ledger_amount_out_of_range).
 */
export function checkTenantTransfer(req: TransferRequest): CheckedTransfer {
  const t = checkTransferRequest(req);
  refuseReservedTransferId(t.id, 'id');
  refuseReservedAccount(t.debitAccount, 'debitAccount');
  refuseReservedAccount(t.creditAccount, 'creditAccount');
  return t;
}

/**
 * The engine's own transfers (attempt costs), which use the reserved names. Not part of
 * the package's API: tenant-facing code calls createTransfer.
 */
export async function createEngineTransfer(
  db: Queryable,
  req: TransferRequest,
): Promise<CreateTransferResult> {
  return insertTransfer(db, checkTransferRequest(req));
}

/** What the ledger's write says about one transfer: the row its id names, and whether the write inserted it. */
export interface TransferOutcome {
  row: TransferRow;
  created: boolean;
}

/**
 * The ledger's one write (createTransfersBatch.ts) for transfers with distinct (owner, id):
 * for each, its outcome, or undefined when its row could not be read back.
 */
export async function writeTransfers(
  db: Queryable,
  batch: CheckedTransfer[],
): Promise<(TransferOutcome | undefined)[]> {
  return outcomes(batch, await createTransfersBatch(db, batch));
}

function outcomes(batch: CheckedTransfer[], { inserted, existing }: TransfersOutcome) {
  return batch.map((_, i): TransferOutcome | undefined => {
    const created = inserted[i];
    if (created) return { row: created, created: true };
    const row = existing[i];
    return row ? { row, created: false } : undefined;
  });
}

/**
 * The answer a request gets from the transfer its id names: the one it created (`first`,
 * and the write inserted it), a replay of the same fields, or a conflict for other fields.
 */
export function answerTransfer(o: TransferOutcome, t: CheckedTransfer, first: boolean): CreateTransferResult {
  if (!sameTransfer(o.row, t)) throw differentFields(t.id, o.row);
  return { transfer: transferView(o.row), replayed: !(o.created && first) };
}

/** Records one checked transfer: the ledger's write with this transfer alone (one statement). */
export async function insertTransfer(db: Queryable, t: CheckedTransfer): Promise<CreateTransferResult> {
  let outcome: TransferOutcome | undefined;
  try {
    [outcome] = outcomes([t], await createTransferAlone(db, t));
  } catch (error) {
    if (sqlState(error) === FOREIGN_KEY_VIOLATION) throw await currencyMismatch(db, t);
    throw amountOutOfRange(error) ?? error;
  }
  // The id exists (committed before or during the statement) but the fresh read missed it.
  if (!outcome) throw new Error(`transfer ${t.id} conflicted but cannot be read; retry the request`);
  return answerTransfer(outcome, t, true);
}

/** True when the stored transfer is the one `t` asks for (a plain transfer with equal fields). */
export function sameTransfer(row: TransferRow, t: CheckedTransfer): boolean {
  return (
    row.reverses === null &&
    row.debit_account === t.debitAccount &&
    row.credit_account === t.creditAccount &&
    Number(row.amount) === t.amount &&
    row.currency === t.currency &&
    row.reference === t.reference &&
    (row.effective_at?.getTime() ?? null) === (t.effectiveAt?.getTime() ?? null)
  );
}

export function differentFields(id: string, existing: TransferRow): OnejobError {
  return new OnejobError(
    'transfer_exists_with_different_fields',
    `Transfer ${id} already exists with different fields. A retry must resend the same fields; a new transfer needs a new id.`,
    { transfer: transferView(existing) },
  );
}

export async function currencyMismatch(db: Queryable, t: CheckedTransfer): Promise<OnejobError> {
  // Account currencies never change, so reading them after the refusal is exact.
  const { rows } = await db
    .query<{ account: string; currency: string }>(READ_CURRENCIES_SQL, [
      t.ownerId,
      [t.debitAccount, t.creditAccount],
    ])
    .catch(() => ({ rows: [] as { account: string; currency: string }[] }));
  const accounts = Object.fromEntries(rows.map((r) => [r.account, r.currency]));
  const held = rows.filter((r) => r.currency !== t.currency).map((r) => `${r.account} holds ${r.currency}`);
  return new OnejobError(
    'currency_mismatch',
    `The transfer is in ${t.currency} but ${held.join(' and ') || 'an account holds another currency'}; a transfer moves one currency between accounts of that currency.`,
    { accounts },
  );
}

/**
 * The totals CHECK (migrations/0009_ledger_safety.sql, 0010) refused the transfer: an account's
 * all-time debits or credits would pass 2^53 - 1, beyond what a JavaScript number holds exactly.
 */
export function amountOutOfRange(error: unknown): OnejobError | undefined {
  if (sqlState(error) !== CHECK_VIOLATION) return undefined;
  if ((error as { constraint?: unknown }).constraint !== 'ledger_account_totals_safe') return undefined;
  return new OnejobError(
    'ledger_amount_out_of_range',
    `The transfer would take an account's debits or credits past ${Number.MAX_SAFE_INTEGER} (2^53 - 1), the largest amount the ledger keeps exact; nothing was written.`,
  );
}
