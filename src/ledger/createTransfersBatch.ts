import type { Queryable } from '../db/createPool.js';
import { withTransaction } from '../db/withTransaction.js';
import { OnejobError } from '../errors/OnejobError.js';
import { failpoint } from '../failpoints/failpoints.js';
import type { CheckedTransfer } from './checkTransferRequest.js';
import { TRANSFER_COLUMNS, type TransferRow } from './transferView.js';

// Every account the batch touches gets its totals row locked first, in (owner, account)
// order, created at zero if new. Without it, two batches sharing accounts and ids could
// each hold what the other needs: the transfers INSERT waits on another batch's unique-index
// entries, and the totals trigger (migrations/0010_ledger_totals_per_statement.sql) locks
// the totals rows at the end of the statement. Locked up front in one order, the second
// batch waits at its first shared account and never holds a row the first needs.
const LOCK_TOTALS_SQL = `
INSERT INTO onejob.ledger_account_totals AS t (owner_id, account)
SELECT DISTINCT a.owner_id, a.account FROM json_to_recordset($1::json) AS a(owner_id text, account text)
ORDER BY a.owner_id, a.account
ON CONFLICT (owner_id, account) DO UPDATE SET debits = t.debits`;

// The ledger's one write: a set of transfers with distinct (owner, id) (a single one for a
// transfer alone or in a caller's transaction, createTransfer.ts). Transfers are inserted in
// id order (two batches sharing ids wait on each other's unique-index entries in one order;
// each transfer's two entries come from a trigger), then their accounts, created on first
// use with the transfer's currency, in name order so two writes creating the same accounts
// cannot deadlock. The currency foreign keys, checked at the end of the statement, refuse a
// currency that differs from an existing account's. The accounts insert names no conflict
// target: the table has two unique keys, (owner, account) and (owner, account, currency),
// and a conflict target covers only its own; two writes creating one account at once
// would otherwise meet on the second key as a unique violation instead of a no-op. A transfer whose id is taken inserts
// nothing at all, accounts included, and comes back without a row; the caller reads those
// after the statement.
const CREATE_BATCH_SQL = `
WITH req AS (
  SELECT * FROM json_to_recordset($1::json) AS r(
    ord int, owner_id text, id text, debit_account text, credit_account text, amount bigint,
    currency text, reference text, effective_at timestamptz)
), t AS (
  INSERT INTO onejob.ledger_transfers (owner_id, id, debit_account, credit_account, amount, currency, reference, effective_at)
  SELECT owner_id, id, debit_account, credit_account, amount, currency, reference, effective_at
  FROM req ORDER BY owner_id, id
  ON CONFLICT (owner_id, id) DO NOTHING
  RETURNING ${TRANSFER_COLUMNS}
), accounts AS (
  INSERT INTO onejob.ledger_accounts (owner_id, account, currency)
  SELECT t.owner_id, a.account, t.currency
  FROM t CROSS JOIN LATERAL (VALUES (t.debit_account), (t.credit_account)) AS a (account)
  ORDER BY t.owner_id, a.account
  ON CONFLICT DO NOTHING
)
SELECT r.ord, t.* FROM t JOIN req r ON r.owner_id = t.owner_id AND r.id = t.id`;

// The same columns as every other read of a transfer (recorded_at to the microsecond).
const READ_BATCH_SQL = `
SELECT r.ord, t.* FROM json_to_recordset($1::json) AS r(ord int, owner_id text, id text)
CROSS JOIN LATERAL (
  SELECT ${TRANSFER_COLUMNS} FROM onejob.ledger_transfers
  WHERE owner_id = r.owner_id AND id = r.id
) AS t`;

type BatchRow = TransferRow & { ord: number };

/** For each transfer, in input order: the row it inserted, or the row its id already named. */
export interface TransfersOutcome {
  inserted: (TransferRow | undefined)[];
  existing: (TransferRow | undefined)[];
}

/**
 * Records transfers with distinct (owner, id) in one transaction and one commit (a
 * savepoint in the caller's transaction), and checks the answer row by row: each row names
 * one request, none is answered twice, and every row carries its request's owner and id. A
 * transfer missing from both lists could not be read back and must be settled on its own.
 */
export async function createTransfersBatch(
  db: Queryable,
  batch: readonly CheckedTransfer[],
): Promise<TransfersOutcome> {
  return withTransaction(db, (tx) => writeTransfers(tx, batch, true));
}

/**
 * One transfer through the same statement, as every transfer alone was always written: no
 * transaction around it and no totals lock ahead (its one statement takes its totals rows
 * once, at its end). A refusal fails the caller's transaction, as any failed statement does.
 */
export async function createTransferAlone(db: Queryable, t: CheckedTransfer): Promise<TransfersOutcome> {
  return writeTransfers(db, [t], false);
}

async function writeTransfers(
  db: Queryable,
  batch: readonly CheckedTransfer[],
  shared: boolean,
): Promise<TransfersOutcome> {
  const requests = batch.map((t, i) => ({
    ord: i + 1,
    owner_id: t.ownerId,
    id: t.id,
    debit_account: t.debitAccount,
    credit_account: t.creditAccount,
    amount: t.amount,
    currency: t.currency,
    reference: t.reference,
    effective_at: t.effectiveAt?.toISOString() ?? null,
  }));
  if (shared) {
    const accounts = batch.flatMap((t) => [
      { owner_id: t.ownerId, account: t.debitAccount },
      { owner_id: t.ownerId, account: t.creditAccount },
    ]);
    await db.query(LOCK_TOTALS_SQL, [JSON.stringify(accounts)]);
    await failpoint('ledger.batch');
  }
  const created = await db.query<BatchRow>(CREATE_BATCH_SQL, [JSON.stringify(requests)]);
  const inserted = matchRows(batch, created.rows, 'inserted');
  const missing = requests
    .filter((_, i) => !inserted[i])
    .map(({ ord, owner_id, id }) => ({ ord, owner_id, id }));
  // Ids taken before or during this statement: read in a new statement, which sees them.
  const found = missing.length
    ? (await db.query<BatchRow>(READ_BATCH_SQL, [JSON.stringify(missing)])).rows
    : [];
  const existing = matchRows(batch, found, 'read');
  existing.forEach((row, i) => {
    if (row && inserted[i]) throw batchAnswer(`read back request ${i + 1}, which it had inserted`);
  });
  return { inserted, existing };
}

function matchRows(
  batch: readonly CheckedTransfer[],
  rows: BatchRow[],
  what: string,
): (TransferRow | undefined)[] {
  const out: (TransferRow | undefined)[] = new Array(batch.length).fill(undefined);
  for (const row of rows) {
    const i = row.ord - 1;
    const t = batch[i];
    if (!t) throw batchAnswer(`${what} a row for request ${row.ord} of ${batch.length}`);
    if (out[i]) throw batchAnswer(`${what} two rows for request ${row.ord}`);
    if (row.owner_id !== t.ownerId || row.id !== t.id) {
      throw batchAnswer(`${what} another transfer for request ${row.ord}`);
    }
    out[i] = row;
  }
  return out;
}

const batchAnswer = (problem: string) =>
  new OnejobError('internal_error', `The ledger batch statement ${problem}.`);
