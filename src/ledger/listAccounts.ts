import type { AccountBalance, AccountPage, AccountsQuery } from '../contract/index.js';
import type { Queryable } from '../db/createPool.js';
import { checkAccount, checkAsOf, type InstantInput } from './checkTransferRequest.js';
import { ACCOUNT_SUMS_COLUMNS, type AccountSumsRow, accountSums, accountSumsJoins } from './transferView.js';

export type { AccountBalance, AccountPage };

/**
 * The query of `GET /v1/ledger/accounts` (src/contract): `asOf`, accounts whose name sorts
 * after `after` (the previous page's `nextAfter`) and `limit`; `asOf` may also be a Date.
 */
export type ListAccountsQuery = Omit<AccountsQuery, 'asOf' | 'after'> & {
  asOf?: InstantInput;
  after?: string | null | undefined;
};

// Same sums as getBalance, one row per account of the owner, in name order on the primary
// key. An account opened after asOf did not exist then, so it is left out.
const ACCOUNTS_SQL = `
WITH at AS (SELECT coalesce($2::timestamptz, clock_timestamp()) AS as_of)
SELECT ${ACCOUNT_SUMS_COLUMNS}
FROM at
JOIN onejob.ledger_accounts a
  ON a.owner_id = $1 AND a.created_at <= at.as_of AND ($3::text IS NULL OR a.account > $3)
${accountSumsJoins('$2')}
ORDER BY a.account
LIMIT $4`;

/** An owner's accounts with their balances as recorded at or before `asOf` (default: now). */
export async function listAccounts(
  db: Queryable,
  ownerId: string,
  query: ListAccountsQuery = {},
): Promise<AccountPage> {
  const at = checkAsOf(query.asOf);
  const after = query.after ? checkAccount(query.after, 'after') : null;
  const limit = Math.min(Math.max(query.limit ?? 100, 1), 500);
  const { rows } = await db.query<AccountSumsRow>(ACCOUNTS_SQL, [ownerId, at, after, limit]);
  const items = rows.map((row) => ({ account: row.account, currency: row.currency, ...accountSums(row) }));
  // An empty page still names the instant it describes.
  const asOf = rows[0]?.as_of ?? (at ? new Date(at).toISOString() : new Date().toISOString());
  return { asOf, items, nextAfter: rows.length === limit ? (items.at(-1)?.account ?? null) : null };
}
