import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countRows } from '../helpers/countRows.js';
import { OWNER_B, startTestApp, type TestApp } from '../helpers/startTestApp.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

const transfer = (json: unknown, token?: string) =>
  t.request('/v1/ledger/transfers', { method: 'POST', json, ...(token ? { token } : {}) });
const balance = async (account: string, asOf?: string, token?: string) => {
  const r = await t.request(
    `/v1/ledger/accounts/${account}${asOf ? `?asOf=${encodeURIComponent(asOf)}` : ''}`,
    token ? { token } : {},
  );
  return {
    status: r.status,
    body: (await r.json()) as {
      balance: number;
      debits: number;
      credits: number;
      currency: string;
      asOf: string;
      code?: string;
    },
  };
};

const count = (sql: string, params: unknown[] = []) => countRows(t.onejob.pool, sql, params);
const ledgerRows = () =>
  count(
    `SELECT 1 FROM onejob.ledger_transfers UNION ALL SELECT 1 FROM onejob.ledger_entries UNION ALL SELECT 1 FROM onejob.ledger_accounts`,
  );

describe('ledger transfers', () => {
  it('a transfer writes one debit and one credit entry and moves the balances by its amount', async () => {
    const r = await transfer({
      id: 't-basic',
      debitAccount: 'cash',
      creditAccount: 'sales',
      amount: 1999,
      currency: 'EUR',
      reference: 'order 7',
    });
    expect(r.status).toBe(201);
    const body = (await r.json()) as { id: string; amount: number; recordedAt: string; effectiveAt: string };
    expect(body).toMatchObject({
      id: 't-basic',
      debitAccount: 'cash',
      creditAccount: 'sales',
      amount: 1999,
      currency: 'EUR',
      reverses: null,
    });
    expect(body.effectiveAt).toBe(body.recordedAt);
    expect((await balance('cash')).body).toMatchObject({
      account: 'cash',
      currency: 'EUR',
      balance: -1999,
      debits: 1999,
      credits: 0,
    });
    expect((await balance('sales')).body).toMatchObject({ balance: 1999, debits: 0, credits: 1999 });
    expect(await count(`SELECT 1 FROM onejob.ledger_entries WHERE transfer_id = 't-basic'`)).toBe(2);
  });

  it('the same id with the same fields replays with 200 and Idempotent-Replayed, writing nothing', async () => {
    const body = {
      id: 't-replay',
      debitAccount: 'a1',
      creditAccount: 'a2',
      amount: 5,
      currency: 'USD',
      effectiveAt: '2025-01-31T14:02:00Z',
    };
    const first = await transfer(body);
    expect(first.status).toBe(201);
    const before = await ledgerRows();
    const again = await transfer({ ...body, effectiveAt: '2025-01-31T14:02:00.000+00:00' });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toEqual(await first.json());
    expect(await ledgerRows()).toBe(before);
    expect((await balance('a2')).body.balance).toBe(5);
  });

  it('the same id with different fields is a 409 and writes nothing, not even a new account', async () => {
    await transfer({ id: 't-scope', debitAccount: 'b1', creditAccount: 'b2', amount: 5, currency: 'USD' });
    const before = await ledgerRows();
    for (const change of [
      { amount: 6 },
      { creditAccount: 'b-new' },
      { reference: 'x' },
      { effectiveAt: '2020-01-01T00:00:00Z' },
    ]) {
      const r = await transfer({
        id: 't-scope',
        debitAccount: 'b1',
        creditAccount: 'b2',
        amount: 5,
        currency: 'USD',
        ...change,
      });
      expect(r.status).toBe(409);
      expect(((await r.json()) as { code: string }).code).toBe('transfer_exists_with_different_fields');
    }
    expect(await ledgerRows()).toBe(before);
    expect((await balance('b-new')).status).toBe(404);
  });

  it('50 concurrent posts of one transfer id record it once; all answers carry the same transfer', async () => {
    const body = { id: 't-race', debitAccount: 'r1', creditAccount: 'r2', amount: 7, currency: 'USD' };
    const responses = await Promise.all(Array.from({ length: 50 }, () => transfer(body)));
    expect(responses.filter((r) => r.status === 201)).toHaveLength(1);
    expect(
      responses.filter((r) => r.status === 200 && r.headers.get('idempotent-replayed') === 'true'),
    ).toHaveLength(49);
    const bodies = new Set(await Promise.all(responses.map((r) => r.text())));
    expect(bodies.size).toBe(1);
    expect((await balance('r2')).body.balance).toBe(7);
  });

  it('a transfer between accounts of different currencies is a 422 currency_mismatch and writes nothing', async () => {
    await transfer({
      id: 't-usd',
      debitAccount: 'usd-wallet',
      creditAccount: 'usd-sink',
      amount: 100,
      currency: 'USD',
    });
    await transfer({
      id: 't-eur',
      debitAccount: 'eur-wallet',
      creditAccount: 'eur-sink',
      amount: 100,
      currency: 'EUR',
    });
    const before = await ledgerRows();
    const cases = [
      { debitAccount: 'usd-wallet', creditAccount: 'eur-wallet', currency: 'USD' },
      { debitAccount: 'usd-wallet', creditAccount: 'brand-new', currency: 'EUR' },
      { debitAccount: 'brand-new-2', creditAccount: 'eur-wallet', currency: 'USD' },
    ];
    for (const [i, c] of cases.entries()) {
      const r = await transfer({ id: `t-mix-${i}`, amount: 1, ...c });
      expect(r.status).toBe(422);
      const problem = (await r.json()) as { code: string; detail: string };
      expect(problem.code).toBe('currency_mismatch');
    }
    expect(await ledgerRows()).toBe(before);
    expect((await balance('brand-new')).status).toBe(404);
  });

  it('every malformed transfer gets request_invalid and writes nothing', async () => {
    const before = await ledgerRows();
    const good = { id: 't-bad', debitAccount: 'c1', creditAccount: 'c2', amount: 1, currency: 'USD' };
    const bad: Record<string, unknown>[] = [
      { ...good, amount: 0 },
      { ...good, amount: -5 },
      { ...good, amount: 1.5 },
      { ...good, amount: 2 ** 53 },
      { ...good, currency: 'usd' },
      { ...good, currency: '' },
      { ...good, creditAccount: 'c1' },
      { ...good, debitAccount: 'has space' },
      { ...good, debitAccount: 'a/b' },
      { ...good, id: '' },
      { ...good, id: 'x'.repeat(256) },
      { ...good, effectiveAt: 'yesterday' },
      { ...good, extra: true },
      { id: 't-bad', debitAccount: 'c1', creditAccount: 'c2', currency: 'USD' },
    ];
    for (const body of bad) {
      const r = await transfer(body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(((await r.json()) as { code: string }).code).toBe('request_invalid');
    }
    const notJson = await t.request('/v1/ledger/transfers', {
      method: 'POST',
      body: '{"id":',
      headers: { 'content-type': 'application/json' },
    });
    expect(((await notJson.json()) as { code: string }).code).toBe('invalid_json');
    expect(await ledgerRows()).toBe(before);
  });

  it('accounts are scoped to their owner: another owner sees 404 and has its own account of that name', async () => {
    await transfer({
      id: 't-owner',
      debitAccount: 'o-shared',
      creditAccount: 'o-other',
      amount: 3,
      currency: 'USD',
    });
    expect((await balance('o-shared', undefined, OWNER_B.token)).status).toBe(404);
    expect((await t.request('/v1/ledger/transfers/t-owner', { token: OWNER_B.token })).status).toBe(404);
    // The same transfer id and account names for owner B are B's own, in B's currency.
    const rb = await transfer(
      { id: 't-owner', debitAccount: 'o-shared', creditAccount: 'o-other', amount: 9, currency: 'EUR' },
      OWNER_B.token,
    );
    expect(rb.status).toBe(201);
    expect((await balance('o-shared')).body).toMatchObject({ currency: 'USD', balance: -3 });
    expect((await balance('o-shared', undefined, OWNER_B.token)).body).toMatchObject({
      currency: 'EUR',
      balance: -9,
    });
  });

  it('an unknown account is 404 account_not_found; a bad asOf is 400', async () => {
    const r = await balance('nobody');
    expect(r.status).toBe(404);
    expect(r.body.code).toBe('account_not_found');
    await transfer({ id: 't-asof', debitAccount: 'q1', creditAccount: 'q2', amount: 1, currency: 'USD' });
    const bad = await balance('q1', 'not-a-time');
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('request_invalid');
    const entries = await t.request('/v1/ledger/accounts/nobody/entries');
    expect(entries.status).toBe(404);
  });

  it('account names and transfer ids with colons and dots work in URLs', async () => {
    const r = await transfer({
      id: 'order:0190.x',
      debitAccount: 'customer:42.a',
      creditAccount: 'merchant:sim.pay:EUR',
      amount: 300,
      currency: 'EUR',
    });
    expect(r.status).toBe(201);
    expect((await balance('merchant:sim.pay:EUR')).body).toMatchObject({ balance: 300 });
    expect((await t.request('/v1/ledger/transfers/order:0190.x')).status).toBe(200);
    const entries = await t.request(`/v1/ledger/accounts/${encodeURIComponent('customer:42.a')}/entries`);
    expect(((await entries.json()) as { items: unknown[] }).items).toHaveLength(1);
  });

  it('the ledger routes need a bearer token', async () => {
    const r = await t.request('/v1/ledger/accounts/cash', { token: null });
    expect(r.status).toBe(401);
  });
});
