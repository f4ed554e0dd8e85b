import { afterAll, beforeAll, expect, it } from 'vitest';
import { OWNER_B, startTestApp, type TestApp } from '../helpers/startTestApp.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

interface AccountPage {
  asOf: string;
  items: { account: string; currency: string; balance: number; debits: number; credits: number }[];
  nextAfter: string | null;
}

const transfer = (id: string, debitAccount: string, creditAccount: string, amount: number, token?: string) =>
  t.request('/v1/ledger/transfers', {
    method: 'POST',
    json: { id, debitAccount, creditAccount, amount, currency: 'EUR' },
    ...(token ? { token } : {}),
  });
const accounts = async (query = '', token?: string) => {
  const r = await t.request(`/v1/ledger/accounts${query}`, token ? { token } : {});
  expect(r.status).toBe(200);
  return (await r.json()) as AccountPage;
};

it("the accounts list shows only the owner's accounts, each with the balance its entries sum to", async () => {
  expect((await transfer('t1', 'cash', 'revenue', 700)).status).toBe(201);
  expect((await transfer('t2', 'cash', 'fees', 300)).status).toBe(201);
  expect((await transfer('other', 'cash', 'secret', 5, OWNER_B.token)).status).toBe(201);
  const page = await accounts();
  expect(page.items).toEqual([
    {
      account: 'cash',
      currency: 'EUR',
      balance: -1000,
      debits: 1000,
      credits: 0,
      heldDebits: 0,
      heldCredits: 0,
      available: -1000,
    },
    {
      account: 'fees',
      currency: 'EUR',
      balance: 300,
      debits: 0,
      credits: 300,
      heldDebits: 0,
      heldCredits: 0,
      available: 300,
    },
    {
      account: 'revenue',
      currency: 'EUR',
      balance: 700,
      debits: 0,
      credits: 700,
      heldDebits: 0,
      heldCredits: 0,
      available: 700,
    },
  ]);
  expect((await accounts('', OWNER_B.token)).items.map((a) => a.account)).toEqual(['cash', 'secret']);
});

it('as of an earlier instant, later transfers do not count and later accounts are not listed', async () => {
  const before = (await accounts()).asOf;
  expect((await transfer('t3', 'cash', 'refunds', 50)).status).toBe(201);
  const then = await accounts(`?asOf=${encodeURIComponent(before)}`);
  expect(then.asOf).toBe(before);
  expect(then.items.map((a) => a.account)).not.toContain('refunds');
  expect(then.items.find((a) => a.account === 'cash')?.balance).toBe(-1000);
  expect((await accounts()).items.find((a) => a.account === 'cash')?.balance).toBe(-1050);
});

it('pages by name with nextAfter, each account on exactly one page', async () => {
  const first = await accounts('?limit=2');
  expect(first.items.map((a) => a.account)).toEqual(['cash', 'fees']);
  expect(first.nextAfter).toBe('fees');
  const second = await accounts(`?limit=2&after=${first.nextAfter}`);
  expect(second.items.map((a) => a.account)).toEqual(['refunds', 'revenue']);
  const third = await accounts(`?limit=2&after=${second.nextAfter}`);
  expect(third).toMatchObject({ items: [], nextAfter: null });
});
