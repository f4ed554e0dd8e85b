import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPEND_ONLY, CHECK_VIOLATION, sqlState } from '../../src/db/sqlstate.js';
import { createTransfer } from '../../src/ledger/createTransfer.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';

let db: TestDatabase;
let pool: pg.Pool;
beforeAll(async () => {
  db = await createTestDatabase();
  pool = new pg.Pool({ connectionString: db.url, max: 4 });
  await createTransfer(pool, {
    ownerId: 'o',
    id: 'x1',
    debitAccount: 'a',
    creditAccount: 'b',
    amount: 10,
    currency: 'USD',
  });
  await createTransfer(pool, {
    ownerId: 'o',
    id: 'x2',
    debitAccount: 'b',
    creditAccount: 'a',
    amount: 4,
    currency: 'USD',
  });
});
afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

const failure = (sql: string) =>
  pool.query(sql).then(
    () => undefined,
    (error: unknown) => sqlState(error),
  );

const snapshot = async () =>
  (
    await pool.query(`SELECT
      (SELECT json_agg(t ORDER BY id) FROM onejob.ledger_transfers t) AS transfers,
      (SELECT json_agg(e ORDER BY seq) FROM onejob.ledger_entries e) AS entries,
      (SELECT json_agg(a ORDER BY account) FROM onejob.ledger_accounts a) AS accounts`)
  ).rows[0];

describe('the ledger is append-only in the database itself', () => {
  it('UPDATE, DELETE and TRUNCATE on every ledger table fail and change nothing', async () => {
    const before = await snapshot();
    const statements = [
      `UPDATE onejob.ledger_transfers SET amount = 1`,
      `UPDATE onejob.ledger_transfers SET recorded_at = '2000-01-01'`,
      `DELETE FROM onejob.ledger_transfers WHERE id = 'x2'`,
      `TRUNCATE onejob.ledger_transfers CASCADE`,
      `UPDATE onejob.ledger_entries SET amount = 1`,
      `DELETE FROM onejob.ledger_entries`,
      `TRUNCATE onejob.ledger_entries`,
      `UPDATE onejob.ledger_accounts SET currency = 'EUR'`,
      `DELETE FROM onejob.ledger_accounts WHERE account = 'a'`,
      `TRUNCATE onejob.ledger_accounts CASCADE`,
    ];
    for (const sql of statements) expect(await failure(sql), sql).toBe(APPEND_ONLY);
    expect(await snapshot()).toEqual(before);
  });

  it('an entry cannot be inserted on its own, only as half of a transfer', async () => {
    const code =
      await failure(`INSERT INTO onejob.ledger_entries (owner_id, transfer_id, account, counterparty, side, amount, currency, recorded_at)
      VALUES ('o', 'x1', 'a', 'b', 'debit', 999, 'USD', now())`);
    expect(code).toBe(APPEND_ONLY);
  });

  it('a reversal that does not mirror its original is refused by the database', async () => {
    const code =
      await failure(`INSERT INTO onejob.ledger_transfers (owner_id, id, debit_account, credit_account, amount, currency, reverses, reason)
      VALUES ('o', 'bad-rev', 'b', 'a', 9, 'USD', 'x1', 'wrong amount')`);
    expect(code).toBe(CHECK_VIOLATION);
  });

  it('recorded_at is stamped by the database: a client cannot backdate a transfer', async () => {
    await pool.query(`INSERT INTO onejob.ledger_transfers (owner_id, id, debit_account, credit_account, amount, currency, recorded_at)
      VALUES ('o', 'backdated', 'a', 'b', 1, 'USD', '2000-01-01')`);
    const { rows } = await pool.query(
      `SELECT recorded_at FROM onejob.ledger_transfers WHERE id = 'backdated'`,
    );
    expect(rows[0].recorded_at.getFullYear()).toBeGreaterThan(2020);
  });
});
