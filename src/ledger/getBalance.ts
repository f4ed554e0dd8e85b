import type { Balance } from '../contract/index.js';
import type { Queryable } from '../db/createPool.js';
import { OnejobError } from '../errors/OnejobError.js';
import { checkAccount, checkAsOf } from './checkTransferRequest.js';
import { ACCOUNT_SUMS_COLUMNS, type AccountSumsRow, accountSums, accountSumsJoins } from './transferView.js';

/** An account's balance at an instant: the sum of its entries (the wire contract's shape). */
export type { Balance };

// A balance is the sum of the account's entries, never a stored running total, so it
// cannot drift from the entries whatever the concurrency. Without asOf, "now" is the
// database clock, to the microsecond like recorded_at.
const BALANCE_SQL = `
WITH at AS (SELECT coalesce($3::timestamptz, clock_timestamp()) AS as_of)
SELECT ${ACCOUNT_SUMS_COLUMNS}
FROM at
JOIN onejob.ledger_accounts a ON a.owner_id = $1 AND a.account = $2
${accountSumsJoins('$3')}`;

/**
 * The balance of an owner's account as recorded at or before `asOf` (default: now).
 *
 * @example
 * ```ts
 * const { balance } = await getBalance(pool, 'acme', 'revenue'); // now
 * const atYearEnd = await getBalance(pool, 'acme', 'revenue', '2026-12-31T23:59:59Z');
 * ```
 */
export async function getBalance(
  db: Queryable,
  ownerId: string,
  account: string,
  asOf?: Date | string | null,
): Promise<Balance> {
  checkAccount(account);
  const at = checkAsOf(asOf);
  const { rows } = await db.query<AccountSumsRow>(BALANCE_SQL, [ownerId, account, at]);
  const row = rows[0];
  if (!row)
    throw new OnejobError(
      'account_not_found',
      `There is no account ${account}; GET /v1/ledger/accounts lists yours (attempt costs post to usage:<CURRENCY>_MICROS).`,
    );
  return { account: row.account, currency: row.currency, ...accountSums(row), asOf: row.as_of };
}
