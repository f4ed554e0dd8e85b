import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { budgetsCommand } from '../../src/cli/commands/budgetsCommand.js';
import { ADMIN_TOKEN, OWNER_A, OWNER_B, startTestApp, type TestApp } from '../helpers/startTestApp.js';
import { runCli, runCliInProcess } from './runCli.js';

let t: TestApp;
let pool: pg.Pool;
beforeAll(async () => {
  t = await startTestApp();
  pool = new pg.Pool({ connectionString: t.db.url, max: 1 });
});
afterAll(async () => {
  await pool?.end();
  await t?.close();
});

const admin = () => ({ ONEJOB_URL: t.url, ONEJOB_TOKEN: OWNER_B.token, ONEJOB_ADMIN_TOKEN: ADMIN_TOKEN });
const budgetRows = async () =>
  (await pool.query('SELECT * FROM onejob.budgets ORDER BY owner_id, currency')).rows;

describe('onejob budgets, through the HTTP API', { timeout: 120_000 }, () => {
  it('show without arguments says the owner is not limited when it has no budget', async () => {
    const out = await runCliInProcess(
      { url: t.url, token: OWNER_A.token },
      [budgetsCommand],
      ['budgets', 'show'],
    );
    expect(out).toMatch(/No budget: spending is not limited/);
  });

  it("set (admin token) sets an owner's budget; show reads it, and the owner reads its own", async () => {
    const set = await runCli(
      ['budgets', 'set', OWNER_A.owner, 'USD', '--limit-micros', '2000000', '--period', 'day', '--json'],
      admin(),
    );
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toMatchObject({
      ownerId: OWNER_A.owner,
      currency: 'USD',
      limitMicros: 2_000_000,
      period: 'day',
      availableMicros: 2_000_000,
    });
    const shown = await runCli(['budgets', 'show', OWNER_A.owner, 'USD'], admin());
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/owner-a\s+USD\s+day\s+\S+\s+2000000\s+0\s+0\s+2000000/);
    const own = JSON.parse(
      await runCliInProcess(
        { url: t.url, token: OWNER_A.token },
        [budgetsCommand],
        ['budgets', 'show', '--json'],
      ),
    );
    expect(own.items).toHaveLength(1);
    expect(own.items[0]).toMatchObject({ limitMicros: 2_000_000 });
  });

  it('set without the admin token, or with a bad value, fails and writes nothing', async () => {
    const before = await budgetRows();
    const noAdmin = await runCli(
      ['budgets', 'set', OWNER_A.owner, 'USD', '--limit-micros', '1', '--period', 'day'],
      { ONEJOB_URL: t.url, ONEJOB_TOKEN: OWNER_A.token, ONEJOB_ADMIN_TOKEN: OWNER_A.token },
    );
    expect(noAdmin.code).toBe(1);
    expect(noAdmin.stderr).toMatch(/403|admin/);
    const badPeriod = await runCli(
      ['budgets', 'set', OWNER_A.owner, 'USD', '--limit-micros', '1', '--period', 'week'],
      admin(),
    );
    expect(badPeriod.code).toBe(2);
    expect(badPeriod.stderr).toMatch(/--period/);
    const badCurrency = await runCli(
      ['budgets', 'set', OWNER_A.owner, 'usd', '--limit-micros', '1', '--period', 'day'],
      admin(),
    );
    expect(badCurrency.code).toBe(1);
    expect(badCurrency.stderr).toMatch(/currency/);
    const unknown = await runCli(['budgets', 'show', OWNER_B.owner, 'EUR'], admin());
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/404|no budget/i);
    expect(await budgetRows()).toEqual(before);
  });
});
