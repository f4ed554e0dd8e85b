import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTransaction } from '../../src/db/withTransaction.js';
import { getBalance } from '../../src/ledger/getBalance.js';
import { attemptCostAccounts, postAttemptCost } from '../../src/ledger/postAttemptCost.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';

let db: TestDatabase;
let pool: pg.Pool;
beforeAll(async () => {
  db = await createTestDatabase();
  pool = new pg.Pool({ connectionString: db.url, max: 8 });
});
afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

const transfers = async (owner: string) =>
  (await pool.query('SELECT count(*)::int AS n FROM onejob.ledger_transfers WHERE owner_id = $1', [owner]))
    .rows[0].n as number;

describe('attempt costs in the ledger', () => {
  it('posting one attempt cost five times (two at once) records one transfer from usage to the provider', async () => {
    const cost = {
      ownerId: 'acme',
      attemptId: '0190a0b0-0000-7000-8000-000000000001',
      provider: 'sim-pay',
      costMicros: 300_000,
      jobId: 'job-1',
    };
    const results = await Promise.all([postAttemptCost(pool, cost), postAttemptCost(pool, cost)]);
    for (let i = 0; i < 3; i++) results.push(await postAttemptCost(pool, cost));
    expect(results.filter((r) => r && !r.replayed)).toHaveLength(1);
    expect(new Set(results.map((r) => r?.transfer.id))).toEqual(
      new Set(['attempt-cost:0190a0b0-0000-7000-8000-000000000001']),
    );
    expect(await transfers('acme')).toBe(1);
    const { debitAccount, creditAccount, currency } = attemptCostAccounts('sim-pay');
    expect(currency).toBe('USD_MICROS');
    expect(await getBalance(pool, 'acme', debitAccount)).toMatchObject({
      balance: -300_000,
      currency: 'USD_MICROS',
    });
    expect(await getBalance(pool, 'acme', creditAccount)).toMatchObject({ balance: 300_000 });
  });

  it('two attempts of one job (one lost the race) are two costs: duplicated work shows up as money', async () => {
    await postAttemptCost(pool, {
      ownerId: 'race',
      attemptId: 'att-winner',
      provider: 'primary',
      costMicros: 1_200,
    });
    await postAttemptCost(pool, {
      ownerId: 'race',
      attemptId: 'att-loser',
      provider: 'backup',
      costMicros: 900,
    });
    expect((await getBalance(pool, 'race', attemptCostAccounts('x').debitAccount)).balance).toBe(-2_100);
    expect((await getBalance(pool, 'race', attemptCostAccounts('backup').creditAccount)).balance).toBe(900);
  });

  it('a cost in another currency goes to accounts of that currency, never mixed with USD', async () => {
    await postAttemptCost(pool, { ownerId: 'multi', attemptId: 'a-usd', provider: 'p', costMicros: 10 });
    await postAttemptCost(pool, {
      ownerId: 'multi',
      attemptId: 'a-eur',
      provider: 'p',
      costMicros: 20,
      currency: 'EUR',
    });
    expect(await getBalance(pool, 'multi', 'usage:EUR_MICROS')).toMatchObject({
      balance: -20,
      currency: 'EUR_MICROS',
    });
    expect(await getBalance(pool, 'multi', 'usage:USD_MICROS')).toMatchObject({ balance: -10 });
  });

  it('posted inside the caller transaction, the cost rolls back with it', async () => {
    await expect(
      withTransaction(pool, async (tx) => {
        await postAttemptCost(tx, {
          ownerId: 'tx',
          attemptId: 'a-rolled-back',
          provider: 'p',
          costMicros: 5,
        });
        throw new Error('attempt completion failed');
      }),
    ).rejects.toThrow('attempt completion failed');
    expect(await transfers('tx')).toBe(0);
  });

  it('a zero cost posts nothing; a negative or fractional cost is refused', async () => {
    expect(
      await postAttemptCost(pool, { ownerId: 'zero', attemptId: 'a0', provider: 'p', costMicros: 0 }),
    ).toBeNull();
    await expect(
      postAttemptCost(pool, { ownerId: 'zero', attemptId: 'a1', provider: 'p', costMicros: -1 }),
    ).rejects.toMatchObject({ code: 'request_invalid' });
    await expect(
      postAttemptCost(pool, { ownerId: 'zero', attemptId: 'a2', provider: 'p', costMicros: 1.5 }),
    ).rejects.toMatchObject({ code: 'request_invalid' });
    expect(await transfers('zero')).toBe(0);
  });

  it('the same attempt posted again with another cost is a conflict, not a second charge', async () => {
    await postAttemptCost(pool, { ownerId: 'conf', attemptId: 'a1', provider: 'p', costMicros: 100 });
    await expect(
      postAttemptCost(pool, { ownerId: 'conf', attemptId: 'a1', provider: 'p', costMicros: 101 }),
    ).rejects.toMatchObject({
      code: 'transfer_exists_with_different_fields',
    });
    expect(await transfers('conf')).toBe(1);
  });
});
