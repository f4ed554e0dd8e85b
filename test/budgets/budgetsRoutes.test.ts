import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, OWNER_A, OWNER_B } from '../helpers/startTestApp.js';
import { testAppWithPoolPerFile } from '../helpers/testAppWithPool.js';

const app = testAppWithPoolPerFile();

const put = (path: string, json: unknown, token: string | null = ADMIN_TOKEN) =>
  app.t.request(path, { method: 'PUT', json, token });
const budgetRows = async () =>
  (await app.pool.query('SELECT * FROM onejob.budgets ORDER BY owner_id, currency')).rows;
const usageRows = async () =>
  (
    await app.pool.query(
      'SELECT * FROM onejob.budget_usage ORDER BY owner_id, currency, period, period_start',
    )
  ).rows;

/** An attempt cost the engine posted before the owner had a budget. */
async function postedCost(owner: string, id: string, micros: number) {
  await app.pool.query(
    `INSERT INTO onejob.ledger_accounts (owner_id, account, currency)
     VALUES ($1, 'usage:USD_MICROS', 'USD_MICROS'), ($1, 'provider:p', 'USD_MICROS') ON CONFLICT DO NOTHING`,
    [owner],
  );
  await app.pool.query(
    `INSERT INTO onejob.ledger_transfers (owner_id, id, debit_account, credit_account, amount, currency)
     VALUES ($1, $2, 'usage:USD_MICROS', 'provider:p', $3, 'USD_MICROS')`,
    [owner, id, micros],
  );
}

describe('budget routes', () => {
  it('an owner without a budget is not limited: the admin read is 404 budget_not_found, its own list is empty', async () => {
    const admin = await app.t.request(`/v1/budgets/${OWNER_A.owner}/USD`, { token: ADMIN_TOKEN });
    expect(admin.status).toBe(404);
    expect(((await admin.json()) as { code: string }).code).toBe('budget_not_found');
    const own = await app.t.request('/v1/budget');
    expect(own.status).toBe(200);
    expect(await own.json()).toEqual({ items: [] });
  });

  it('PUT sets a budget at once, counting what the ledger shows spent before it; GET answers the same shape', async () => {
    await postedCost(OWNER_A.owner, 'attempt-cost:before-budget', 250);
    const set = await put(`/v1/budgets/${OWNER_A.owner}/USD`, { limitMicros: 1000, period: 'day' });
    expect(set.status).toBe(200);
    const body = (await set.json()) as Record<string, unknown>;
    const dayStart = `${new Date().toISOString().slice(0, 10)}T00:00:00.000000Z`;
    expect(body).toEqual({
      ownerId: OWNER_A.owner,
      currency: 'USD',
      limitMicros: 1000,
      period: 'day',
      periodStart: dayStart,
      spentMicros: 250,
      heldMicros: 0,
      availableMicros: 750,
    });
    expect(
      await (await app.t.request(`/v1/budgets/${OWNER_A.owner}/USD`, { token: ADMIN_TOKEN })).json(),
    ).toEqual(body);
    expect(await (await app.t.request('/v1/budget')).json()).toEqual({ items: [body] });
    // Another owner sees only its own.
    expect(await (await app.t.request('/v1/budget', { token: OWNER_B.token })).json()).toEqual({ items: [] });
  });

  it('lowering a limit below what is spent leaves availableMicros at 0, never negative', async () => {
    const set = await put(`/v1/budgets/${OWNER_A.owner}/USD`, { limitMicros: 100, period: 'day' });
    expect(await set.json()).toMatchObject({ limitMicros: 100, spentMicros: 250, availableMicros: 0 });
  });

  it('the budget routes need the admin token; an API key does not open them and writes nothing', async () => {
    const before = await budgetRows();
    expect(
      (await put(`/v1/budgets/${OWNER_A.owner}/USD`, { limitMicros: 1, period: 'day' }, OWNER_A.token))
        .status,
    ).toBe(403);
    expect(
      (await put(`/v1/budgets/${OWNER_A.owner}/USD`, { limitMicros: 1, period: 'day' }, null)).status,
    ).toBe(403);
    expect((await app.t.request(`/v1/budgets/${OWNER_A.owner}/USD`)).status).toBe(403);
    expect(await budgetRows()).toEqual(before);
  });

  it('bad input is a 400 request_invalid naming the field, and writes nothing', async () => {
    const before = { budgets: await budgetRows(), usage: await usageRows() };
    for (const [path, body, field] of [
      [`/v1/budgets/${OWNER_B.owner}/USD`, { limitMicros: -1, period: 'day' }, 'limitMicros'],
      [`/v1/budgets/${OWNER_B.owner}/USD`, { limitMicros: 1.5, period: 'day' }, 'limitMicros'],
      [`/v1/budgets/${OWNER_B.owner}/USD`, { limitMicros: '10', period: 'day' }, 'limitMicros'],
      [`/v1/budgets/${OWNER_B.owner}/USD`, { period: 'day' }, 'limitMicros'],
      [`/v1/budgets/${OWNER_B.owner}/USD`, { limitMicros: 10, period: 'week' }, 'period'],
      [`/v1/budgets/${OWNER_B.owner}/USD`, { limitMicros: 10, period: 'day', extra: 1 }, 'extra'],
      [`/v1/budgets/${OWNER_B.owner}/usd`, { limitMicros: 10, period: 'day' }, 'currency'],
      [`/v1/budgets/${OWNER_B.owner}/USDX`, { limitMicros: 10, period: 'day' }, 'currency'],
    ] as const) {
      const r = await put(path, body);
      const problem = (await r.json()) as { code: string; detail: string };
      expect(r.status, `${path} ${JSON.stringify(body)}`).toBe(400);
      expect(problem.code).toBe('request_invalid');
      expect(problem.detail).toContain(field);
    }
    expect({ budgets: await budgetRows(), usage: await usageRows() }).toEqual(before);
  });
});
