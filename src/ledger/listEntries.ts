import type { Queryable } from '../db/createPool.js';
import { OnejobError } from '../errors/OnejobError.js';
import { checkAccount, checkAsOf } from './checkTransferRequest.js';
import { isoMicros, toAmount } from './transferView.js';

/** One ledger entry: one side of a transfer, on one account. */
export interface EntryView {
  transferId: string;
  account: string;
  counterparty: string;
  side: 'debit' | 'credit';
  amount: number;
  currency: string;
  reference: string | null;
  effectiveAt: string;
  recordedAt: string;
  /** On a reversal's entry: the transfer it compensates. */
  reverses: string | null;
  reason: string | null;
  /** The transfer that reversed this one, if that reversal was recorded by `asOf`. */
  reversedBy: string | null;
}

/** A page of an account's entries as of an instant; pass `nextCursor` back as `cursor`. */
export interface EntryPage {
  account: string;
  currency: string;
  asOf: string;
  items: EntryView[];
  nextCursor: string | null;
}

/** The instant and paging of `listEntries`. */
export interface ListEntriesQuery {
  asOf?: Date | string | null | undefined;
  limit?: number | undefined;
  cursor?: string | null | undefined;
}

const ACCOUNT_SQL = `
SELECT currency, ${isoMicros('coalesce($3::timestamptz, clock_timestamp())')} AS as_of
FROM onejob.ledger_accounts WHERE owner_id = $1 AND account = $2`;

// Oldest first, keyset-paginated on (recorded_at, seq), which the account index serves.
const ENTRIES_SQL = `
SELECT e.transfer_id, e.account, e.counterparty, e.side, e.amount::text, e.currency, e.effective_at,
       ${isoMicros('e.recorded_at')} AS recorded_at, e.seq::text,
       t.reference, t.reverses, t.reason, r.id AS reversed_by
FROM onejob.ledger_entries e
JOIN onejob.ledger_transfers t ON t.owner_id = e.owner_id AND t.id = e.transfer_id
LEFT JOIN onejob.ledger_transfers r ON r.owner_id = e.owner_id AND r.reverses = e.transfer_id AND r.recorded_at <= $3::timestamptz
WHERE e.owner_id = $1 AND e.account = $2 AND e.recorded_at <= $3::timestamptz
  AND ($4::timestamptz IS NULL OR (e.recorded_at, e.seq) > ($4::timestamptz, $5::bigint))
ORDER BY e.recorded_at, e.seq
LIMIT $6`;

interface EntryRow {
  transfer_id: string;
  account: string;
  counterparty: string;
  side: 'debit' | 'credit';
  amount: string;
  currency: string;
  effective_at: Date | null;
  recorded_at: string;
  seq: string;
  reference: string | null;
  reverses: string | null;
  reason: string | null;
  reversed_by: string | null;
}

/**
 * The entries of an owner's account recorded at or before `asOf`: originals and reversals alike.
 *
 * @example
 * ```ts
 * const page = await listEntries(pool, 'acme', 'revenue', { limit: 100 });
 * const next = page.nextCursor ? await listEntries(pool, 'acme', 'revenue', { cursor: page.nextCursor }) : null;
 * ```
 */
export async function listEntries(
  db: Queryable,
  ownerId: string,
  account: string,
  query: ListEntriesQuery = {},
): Promise<EntryPage> {
  checkAccount(account);
  const after = query.cursor ? decodeCursor(query.cursor) : null;
  // A cursor carries the asOf of its first page, so later pages describe the same instant.
  const asOf = after?.asOf ?? checkAsOf(query.asOf);
  const limit = query.limit ?? 100;
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
    throw new OnejobError('request_invalid', 'limit must be 1 to 1000');

  const head = (await db.query<{ currency: string; as_of: string }>(ACCOUNT_SQL, [ownerId, account, asOf]))
    .rows[0];
  if (!head) throw new OnejobError('account_not_found', `There is no account ${account}.`);
  const { rows } = await db.query<EntryRow>(ENTRIES_SQL, [
    ownerId,
    account,
    head.as_of,
    after?.recordedAt ?? null,
    after?.seq ?? null,
    limit + 1,
  ]);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    account,
    currency: head.currency,
    asOf: head.as_of,
    items: page.map(entryView),
    nextCursor: rows.length > limit && last ? encodeCursor(head.as_of, last.recorded_at, last.seq) : null,
  };
}

function entryView(row: EntryRow): EntryView {
  return {
    transferId: row.transfer_id,
    account: row.account,
    counterparty: row.counterparty,
    side: row.side,
    amount: toAmount(row.amount),
    currency: row.currency,
    reference: row.reference,
    effectiveAt: row.effective_at?.toISOString() ?? row.recorded_at,
    recordedAt: row.recorded_at,
    reverses: row.reverses,
    reason: row.reason,
    reversedBy: row.reversed_by,
  };
}

function encodeCursor(asOf: string, recordedAt: string, seq: string): string {
  return Buffer.from(`${asOf}|${recordedAt}|${seq}`).toString('base64url');
}

function decodeCursor(cursor: string): { asOf: string; recordedAt: string; seq: string } {
  const [asOf, recordedAt, seq] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  try {
    checkAsOf(asOf);
    checkAsOf(recordedAt);
  } catch {
    throw new OnejobError('request_invalid', 'cursor is not one this API returned');
  }
  if (!asOf || !recordedAt || !/^\d{1,19}$/.test(seq ?? '')) {
    throw new OnejobError('request_invalid', 'cursor is not one this API returned');
  }
  return { asOf, recordedAt, seq: seq as string };
}
