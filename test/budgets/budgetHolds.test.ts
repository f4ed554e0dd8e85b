import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getBudget } from '../../src/budgets/getBudget.js';
import { setBudget } from '../../src/budgets/setBudget.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';

// Holds as the engine takes them (a pending transfer debiting usage:<CUR>_MICROS), written
// straight to the database so only the budget decides.
let db: TestDatabase;
let pool: pg.Pool;
beforeAll(async () => {
  db = await createTestDatabase();
  pool = new pg.Pool({ connectionString: db.url, max: 60 });
});
afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

async function accounts(owner: string) {
  await pool.query(
    `INSERT INTO onejob.ledger_accounts (owner_id, account, currency)
     VALUES ($1, 'usage:USD_MICROS', 'USD_MICROS'), ($1, 'provider:p', 'USD_MICROS') ON CONFLICT DO NOTHING`,
    [owner],
  );
}

const HOLD_SQL = `INSERT INTO onejob.ledger_pending_transfers (owner_id, id, debit_account, credit_account, amount, currency)
  VALUES ($1, $2, 'usage:USD_MICROS', 'provider:p', $3, 'USD_MICROS')`;

async function hold(
  db: pg.Pool | pg.PoolClient,
  owner: string,
  id: string,
  amount: number,
): Promise<'held' | 'refused'> {
  try {
    await db.query(HOLD_SQL, [owner, id, amount]);
    return 'held';
  } catch (error) {
    if ((error as { code?: string }).code === 'OJ010') return 'refused';
    throw error;
  }
}

async function post(owner: string, id: string, amount: number) {
  await pool.query(
    `INSERT INTO onejob.ledger_pending_resolutions (owner_id, pending_id, action, amount) VALUES ($1, $2, 'post', $3)`,
    [owner, id, amount],
  );
}

describe('budgets hold in the database', () => {
  it('50 concurrent holds of 100 against a budget of 1000 admit exactly 10', async () => {
    await accounts('busy');
    await setBudget(pool, { ownerId: 'busy', currency: 'USD', limitMicros: 1000, period: 'total' });
    const clients = await Promise.all(Array.from({ length: 50 }, () => pool.connect()));
    try {
      const outcomes = await Promise.all(clients.map((c, i) => hold(c, 'busy', `h-${i}`, 100)));
      expect(outcomes.filter((o) => o === 'held')).toHaveLength(10);
      expect(outcomes.filter((o) => o === 'refused')).toHaveLength(40);
    } finally {
      for (const c of clients) c.release();
    }
    expect(await getBudget(pool, 'busy', 'USD')).toMatchObject({
      heldMicros: 1000,
      spentMicros: 0,
      availableMicros: 0,
    });
  });

  it('a budget change takes effect at once: raised, the next hold fits; lowered below spent, the next is refused', async () => {
    await accounts('change');
    await setBudget(pool, { ownerId: 'change', currency: 'USD', limitMicros: 100, period: 'month' });
    expect(await hold(pool, 'change', 'c-1', 100)).toBe('held');
    expect(await hold(pool, 'change', 'c-2', 50)).toBe('refused');
    await setBudget(pool, { ownerId: 'change', currency: 'USD', limitMicros: 150, period: 'month' });
    expect(await hold(pool, 'change', 'c-2', 50)).toBe('held');
    await post('change', 'c-1', 80);
    expect(await getBudget(pool, 'change', 'USD')).toMatchObject({
      spentMicros: 80,
      heldMicros: 50,
      availableMicros: 20,
    });
    await setBudget(pool, { ownerId: 'change', currency: 'USD', limitMicros: 60, period: 'month' });
    expect(await hold(pool, 'change', 'c-3', 1)).toBe('refused');
    expect(await getBudget(pool, 'change', 'USD')).toMatchObject({ limitMicros: 60, availableMicros: 0 });
    // Nothing was written for the refused holds.
    const { rows } = await pool.query(
      `SELECT id FROM onejob.ledger_pending_transfers WHERE owner_id = 'change' ORDER BY id`,
    );
    expect(rows.map((r) => r.id)).toEqual(['c-1', 'c-2']);
  });

  it('a day budget starts again at the UTC day boundary; a hold is resolved in the day it was taken', async () => {
    await accounts('daily');
    const c = await pool.connect();
    try {
      await c.query(`SET onejob.budget_now = '2026-03-10T23:59:00Z'`);
      // A caller's connection is a transaction to setBudget ({ tx }).
      await c.query('BEGIN');
      await setBudget(c, { ownerId: 'daily', currency: 'USD', limitMicros: 100, period: 'day' });
      await c.query('COMMIT');
      expect(await hold(c, 'daily', 'd-1', 70)).toBe('held');
      expect(await hold(c, 'daily', 'd-2', 40)).toBe('refused');
      await c.query(`SET onejob.budget_now = '2026-03-11T00:00:00Z'`);
      expect(await getBudget(c, 'daily', 'USD')).toMatchObject({
        periodStart: '2026-03-11T00:00:00.000000Z',
        spentMicros: 0,
        heldMicros: 0,
        availableMicros: 100,
      });
      expect(await hold(c, 'daily', 'd-2', 40)).toBe('held');
      await c.query(
        `INSERT INTO onejob.ledger_pending_resolutions (owner_id, pending_id, action, amount) VALUES ('daily', 'd-1', 'post', 60)`,
      );
      // Posted in the day it was held: the new day has only its own hold.
      expect(await getBudget(c, 'daily', 'USD')).toMatchObject({ spentMicros: 0, heldMicros: 40 });
      await c.query(`SET onejob.budget_now = '2026-03-10T12:00:00Z'`);
      expect(await getBudget(c, 'daily', 'USD')).toMatchObject({ spentMicros: 60, heldMicros: 0 });
    } finally {
      await c.query('RESET onejob.budget_now');
      c.release();
    }
  });

  it('an owner without a budget is not limited', async () => {
    await accounts('free');
    expect(await hold(pool, 'free', 'f-1', 10 ** 12)).toBe('held');
  });
});
