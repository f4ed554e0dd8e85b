import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTransfer } from '../../src/ledger/createTransfer.js';
import { getBalance } from '../../src/ledger/getBalance.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';

let db: TestDatabase;
let pool: pg.Pool;
beforeAll(async () => {
  db = await createTestDatabase();
  pool = new pg.Pool({ connectionString: db.url, max: 32 });
});
afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

const TRANSFERS = 10_000;
const ACCOUNTS = Array.from({ length: 20 }, (_, i) => `acct-${String(i).padStart(2, '0')}`);
const CONCURRENCY = 64;

/** Deterministic pseudo-random numbers, so a failure can be replayed. */
function lcg(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('ledger under concurrency', () => {
  it('10,000 concurrent transfers among 20 accounts (10% sent twice): every id recorded once, balances sum to zero', async () => {
    const rand = lcg(20_240_131);
    const plan = Array.from({ length: TRANSFERS }, (_, i) => {
      const d = Math.floor(rand() * ACCOUNTS.length);
      const c = (d + 1 + Math.floor(rand() * (ACCOUNTS.length - 1))) % ACCOUNTS.length;
      return {
        id: `tx-${i}`,
        debitAccount: ACCOUNTS[d] as string,
        creditAccount: ACCOUNTS[c] as string,
        amount: 1 + Math.floor(rand() * 10_000),
      };
    });
    // Retries of a tenth of the transfers, interleaved with the originals.
    const work = [...plan, ...plan.filter((_, i) => i % 10 === 0)].sort(() => rand() - 0.5);

    const started = Date.now();
    let next = 0;
    let created = 0;
    let replayed = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < work.length) {
          const t = work[next++] as (typeof work)[number];
          const r = await createTransfer(pool, { ownerId: 'bank', currency: 'USD', ...t });
          if (r.replayed) replayed++;
          else created++;
        }
      }),
    );
    const elapsedMs = Date.now() - started;
    console.log(
      `${work.length} transfer requests at concurrency ${CONCURRENCY}: ${elapsedMs} ms (${Math.round(work.length / (elapsedMs / 1000))}/s)`,
    );

    expect(created).toBe(TRANSFERS);
    expect(replayed).toBe(work.length - TRANSFERS);
    const { rows } = await pool.query(
      `SELECT count(*)::int AS transfers, count(DISTINCT id)::int AS ids,
              (SELECT count(*)::int FROM onejob.ledger_entries WHERE owner_id = 'bank') AS entries
       FROM onejob.ledger_transfers WHERE owner_id = 'bank'`,
    );
    expect(rows[0]).toEqual({ transfers: TRANSFERS, ids: TRANSFERS, entries: 2 * TRANSFERS });

    const expected = new Map(ACCOUNTS.map((a) => [a, 0]));
    for (const t of plan) {
      expected.set(t.debitAccount, (expected.get(t.debitAccount) ?? 0) - t.amount);
      expected.set(t.creditAccount, (expected.get(t.creditAccount) ?? 0) + t.amount);
    }
    let sum = 0;
    for (const account of ACCOUNTS) {
      const b = await getBalance(pool, 'bank', account);
      expect(b.balance, account).toBe(expected.get(account));
      sum += b.balance;
    }
    expect(sum).toBe(0);
    // About 20 s on an idle two-core machine; the margin is for a machine busy with other suites.
  }, 120_000);
});
