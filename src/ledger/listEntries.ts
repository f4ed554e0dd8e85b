import type { EntriesQuery, Entry, EntryPage } from '../contract/index.js';
import type { Queryable } from '../db/createPool.js';
import { OnejobError } from '../errors/OnejobError.js';
import { checkAccount, checkAsOf, type InstantInput, TRANSFER_ID_PATTERN } from './checkTransferRequest.js';
import { isoMicros, type RecordedRow, recordedView } from './transferView.js';

/** One ledger entry (one side of a transfer, on one account) and a page of them: the wire contract's shapes. */
export type EntryView = Entry;
export type { EntryPage };

/** The instant and paging of `listEntries`: the query of its route (src/contract); `asOf` may also be a Date. */
export type ListEntriesQuery = Omit<EntriesQuery, 'asOf' | 'cursor'> & {
  asOf?: InstantInput;
  cursor?: string | null | undefined;
};

const ACCOUNT_SQL = `
SELECT currency, ${isoMicros('coalesce($3::timestamptz, clock_timestamp())')} AS as_of
FROM onejob.ledger_accounts WHERE owner_id = $1 AND account = $2`;

// Oldest first, keyset-paginated on (recorded_at, transfer_id, side): the account index
// serves recorded_at, and the owner's own transfer id breaks ties, so a cursor holds
// nothing but the owner's data (the entries' global seq would tell a tenant how many
// entries every other tenant writes).
const ENTRIES_SQL = `
SELECT e.transfer_id, e.account, e.counterparty, e.side, e.amount::text, e.currency, e.effective_at,
       ${isoMicros('e.recorded_at')} AS recorded_at,
       t.reference, t.reverses, t.reason, r.id AS reversed_by
FROM onejob.ledger_entries e
JOIN onejob.ledger_transfers t ON t.owner_id = e.owner_id AND t.id = e.transfer_id
LEFT JOIN onejob.ledger_transfers r ON r.owner_id = e.owner_id AND r.reverses = e.transfer_id AND r.recorded_at <= $3::timestamptz
WHERE e.owner_id = $1 AND e.account = $2 AND e.recorded_at <= $3::timestamptz
  AND ($4::timestamptz IS NULL OR (e.recorded_at, e.transfer_id, e.side) > ($4::timestamptz, $5::text, $6::text))
ORDER BY e.recorded_at, e.transfer_id, e.side
LIMIT $7`;

// A cursor of the earlier form named an entry by its global seq: found again, owner-scoped.
const LEGACY_CURSOR_SQL = `
SELECT transfer_id, side FROM onejob.ledger_entries WHERE owner_id = $1 AND seq = $2::bigint`;

type EntryRow = RecordedRow & {
  transfer_id: string;
  account: string;
  counterparty: string;
  side: 'debit' | 'credit';
  reversed_by: string | null;
};

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
  const after = query.cursor ? await decodeCursor(db, ownerId, query.cursor) : null;
  // A cursor carries the asOf of its first page, so later pages describe the same instant.
  const asOf = after?.asOf ?? checkAsOf(query.asOf);
  const limit = query.limit ?? 100;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > 1000) {
    throw new OnejobError('request_invalid', 'limit must be an integer from 1 to 1000', { param: 'limit' });
  }
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
    throw new OnejobError('request_invalid', 'limit must be 1 to 1000', { param: 'limit' });

  const head = (await db.query<{ currency: string; as_of: string }>(ACCOUNT_SQL, [ownerId, account, asOf]))
    .rows[0];
  if (!head)
    throw new OnejobError(
      'account_not_found',
      `There is no account ${account}; GET /v1/ledger/accounts lists yours (attempt costs post to usage:<CURRENCY>_MICROS).`,
    );
  const { rows } = await db.query<EntryRow>(ENTRIES_SQL, [
    ownerId,
    account,
    head.as_of,
    after?.recordedAt ?? null,
    after?.transferId ?? null,
    after?.side ?? null,
    limit + 1,
  ]);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    account,
    currency: head.currency,
    asOf: head.as_of,
    items: page.map(entryView),
    nextCursor:
      rows.length > limit && last
        ? encodeCursor({
            asOf: head.as_of,
            recordedAt: last.recorded_at,
            transferId: last.transfer_id,
            side: last.side,
          })
        : null,
  };
}

function entryView(row: EntryRow): EntryView {
  return {
    transferId: row.transfer_id,
    account: row.account,
    counterparty: row.counterparty,
    side: row.side,
    ...recordedView(row),
    reversedBy: row.reversed_by,
  };
}

const BIGINT_MAX = 2n ** 63n - 1n;

interface EntryCursor {
  asOf: string;
  recordedAt: string;
  transferId: string;
  side: string;
}

function encodeCursor(c: EntryCursor): string {
  return Buffer.from(JSON.stringify([c.asOf, c.recordedAt, c.transferId, c.side])).toString('base64url');
}

const badCursor = () =>
  new OnejobError('request_invalid', 'cursor is not one this API returned', { param: 'cursor' });

function checkInstants(asOf: unknown, recordedAt: unknown): void {
  try {
    if (typeof asOf !== 'string' || typeof recordedAt !== 'string') throw badCursor();
    checkAsOf(asOf);
    checkAsOf(recordedAt);
  } catch {
    throw badCursor();
  }
}

async function decodeCursor(db: Queryable, ownerId: string, cursor: string): Promise<EntryCursor> {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  if (text.startsWith('[')) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw badCursor();
    }
    if (!Array.isArray(value) || value.length !== 4) throw badCursor();
    const [asOf, recordedAt, transferId, side] = value as unknown[];
    checkInstants(asOf, recordedAt);
    if (
      typeof transferId !== 'string' ||
      !TRANSFER_ID_PATTERN.test(transferId) ||
      (side !== 'debit' && side !== 'credit')
    )
      throw badCursor();
    return { asOf: asOf as string, recordedAt: recordedAt as string, transferId, side };
  }
  // `asOf|recordedAt|seq`, as pages before opaque cursors were given: still followed.
  const [asOf, recordedAt, seq] = text.split('|');
  checkInstants(asOf, recordedAt);
  // seq is a bigint: 19 digits can still pass its maximum, which PostgreSQL would refuse.
  if (!/^\d{1,19}$/.test(seq ?? '') || BigInt(seq as string) > BIGINT_MAX) throw badCursor();
  const entry = (await db.query<{ transfer_id: string; side: string }>(LEGACY_CURSOR_SQL, [ownerId, seq]))
    .rows[0];
  if (!entry) throw badCursor();
  return {
    asOf: asOf as string,
    recordedAt: recordedAt as string,
    transferId: entry.transfer_id,
    side: entry.side,
  };
}
