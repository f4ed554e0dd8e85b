import { describe, expect, it } from 'vitest';
import { OWNER_B } from '../helpers/startTestApp.js';
import { testAppWithPoolPerFile } from '../helpers/testAppWithPool.js';

const app = testAppWithPoolPerFile();

interface Pending {
  id: string;
  amount: number;
  status: string;
  postedAmount: number | null;
  resolvedAt: string | null;
  reason: string | null;
}
interface Balance {
  balance: number;
  debits: number;
  credits: number;
  heldDebits: number;
  heldCredits: number;
  available: number;
  asOf: string;
}

const post = (path: string, json?: unknown, token?: string) =>
  app.t.request(path, {
    method: 'POST',
    ...(json === undefined ? {} : { json }),
    ...(token ? { token } : {}),
  });
const get = async <T>(path: string) => (await (await app.t.request(path)).json()) as T;
const hold = (id: string, amount: number, extra: Record<string, unknown> = {}) =>
  post('/v1/ledger/transfers', {
    id,
    debitAccount: `card:${id}`,
    creditAccount: 'merchant',
    amount,
    currency: 'EUR',
    pending: true,
    ...extra,
  });

/** Everything the ledger holds for the owner: rows that a refused request must leave as they were. */
async function ledgerRows() {
  const q = async (sql: string) => (await app.pool.query(sql)).rows;
  return {
    transfers: await q('SELECT id, amount FROM onejob.ledger_transfers ORDER BY owner_id, id'),
    pending: await q('SELECT id, amount FROM onejob.ledger_pending_transfers ORDER BY owner_id, id'),
    resolutions: await q(
      'SELECT pending_id, action, amount FROM onejob.ledger_pending_resolutions ORDER BY owner_id, pending_id',
    ),
    totals: await q(
      'SELECT account, debits, credits, pending_debits, pending_credits FROM onejob.ledger_account_totals ORDER BY owner_id, account',
    ),
  };
}

describe('two-phase transfers', () => {
  it('a hold shows as held and not available; posting part of it moves that part and releases the rest', async () => {
    const created = await hold('auth-1', 5000, { reference: 'order 1' });
    expect(created.status).toBe(201);
    const p = (await created.json()) as Pending;
    expect(p).toMatchObject({ id: 'auth-1', amount: 5000, status: 'pending', postedAmount: null });

    const held = await get<Balance>('/v1/ledger/accounts/card:auth-1');
    expect(held).toMatchObject({ balance: 0, heldDebits: 5000, heldCredits: 0, available: -5000 });
    expect(await get<Balance>('/v1/ledger/accounts/merchant')).toMatchObject({
      balance: 0,
      heldCredits: 5000,
    });
    expect((await app.t.request('/v1/ledger/transfers/auth-1')).status).toBe(404);

    const posted = await post('/v1/ledger/transfers/auth-1/post', { amount: 4200 });
    expect(posted.status).toBe(201);
    expect(await posted.json()).toMatchObject({ status: 'posted', postedAmount: 4200 });
    expect(await get<Balance>('/v1/ledger/accounts/card:auth-1')).toMatchObject({
      balance: -4200,
      heldDebits: 0,
      available: -4200,
    });
    expect(await get('/v1/ledger/transfers/auth-1')).toMatchObject({ id: 'auth-1', amount: 4200 });
    // As of the moment the hold existed, the balance shows it held, not posted.
    const asOf = await get<Balance>(`/v1/ledger/accounts/card:auth-1?asOf=${encodeURIComponent(held.asOf)}`);
    expect(asOf).toMatchObject({ balance: 0, heldDebits: 5000 });
    const listed = await get<{ items: { account: string; heldDebits: number; available: number }[] }>(
      '/v1/ledger/accounts',
    );
    expect(listed.items.find((a) => a.account === 'card:auth-1')).toMatchObject({
      heldDebits: 0,
      available: -4200,
    });
  });

  it('posting twice with the same amount replays; another amount, or a void after the post, is a 409 and writes nothing', async () => {
    await hold('auth-2', 300);
    expect((await post('/v1/ledger/transfers/auth-2/post')).status).toBe(201);
    const replay = await post('/v1/ledger/transfers/auth-2/post', { amount: 300 });
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const before = await ledgerRows();
    const other = await post('/v1/ledger/transfers/auth-2/post', { amount: 100 });
    expect(other.status).toBe(409);
    expect(((await other.json()) as { code: string }).code).toBe('pending_transfer_already_resolved');
    const voided = await post('/v1/ledger/transfers/auth-2/void', { reason: 'changed my mind' });
    expect(voided.status).toBe(409);
    expect(((await voided.json()) as { code: string }).code).toBe('pending_transfer_already_resolved');
    expect(await ledgerRows()).toEqual(before);
  });

  it('a void releases everything once; posting after it is a 409, voiding again replays', async () => {
    await hold('auth-3', 700);
    const voided = await post('/v1/ledger/transfers/auth-3/void', { reason: 'order cancelled' });
    expect(voided.status).toBe(201);
    expect(await voided.json()).toMatchObject({
      status: 'voided',
      postedAmount: null,
      reason: 'order cancelled',
    });
    expect(await get<Balance>('/v1/ledger/accounts/card:auth-3')).toMatchObject({
      balance: 0,
      heldDebits: 0,
      available: 0,
    });
    expect((await post('/v1/ledger/transfers/auth-3/void')).status).toBe(200);
    const before = await ledgerRows();
    const posted = await post('/v1/ledger/transfers/auth-3/post', {});
    expect(posted.status).toBe(409);
    expect(await ledgerRows()).toEqual(before);
    expect((await app.t.request('/v1/ledger/transfers/auth-3')).status).toBe(404);
  });

  it('posting more than was held is a 422 and writes nothing', async () => {
    await hold('auth-4', 100);
    const before = await ledgerRows();
    const over = await post('/v1/ledger/transfers/auth-4/post', { amount: 101 });
    expect(over.status).toBe(422);
    expect(((await over.json()) as { code: string }).code).toBe('pending_amount_exceeds_hold');
    expect(await ledgerRows()).toEqual(before);
    expect((await get<Pending>('/v1/ledger/transfers/auth-4/pending')).status).toBe('pending');
  });

  it('the database refuses a post above the hold even when the check before it is skipped', async () => {
    await hold('auth-5', 100);
    await expect(
      app.pool.query(
        `INSERT INTO onejob.ledger_pending_resolutions (owner_id, pending_id, action, amount) VALUES ('owner-a', 'auth-5', 'post', 101)`,
      ),
    ).rejects.toMatchObject({ code: 'OJ011' });
  });

  it('a hold is idempotent by id: same fields replay, other fields or a posted transfer id are 409', async () => {
    expect((await hold('auth-6', 10)).status).toBe(201);
    const replay = await hold('auth-6', 10);
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const before = await ledgerRows();
    expect((await hold('auth-6', 11)).status).toBe(409);
    await post('/v1/ledger/transfers', {
      id: 'plain-1',
      debitAccount: 'a',
      creditAccount: 'b',
      amount: 1,
      currency: 'EUR',
    });
    const afterPlain = await ledgerRows();
    const clash = await post('/v1/ledger/transfers', {
      id: 'plain-1',
      debitAccount: 'a',
      creditAccount: 'b',
      amount: 1,
      currency: 'EUR',
      pending: true,
    });
    expect(clash.status).toBe(409);
    expect(await ledgerRows()).toEqual(afterPlain);
    expect(before.pending).toEqual(afterPlain.pending);
  });

  it('posting a transfer that was never pending, or an unknown id, is a clear error and writes nothing', async () => {
    const before = await ledgerRows();
    const plain = await post('/v1/ledger/transfers/plain-1/post');
    expect(plain.status).toBe(409);
    expect(((await plain.json()) as { code: string }).code).toBe('transfer_not_pending');
    const unknown = await post('/v1/ledger/transfers/nope/void');
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { code: string }).code).toBe('pending_transfer_not_found');
    // Another owner's hold is not found either.
    await hold('auth-7', 5);
    expect((await post('/v1/ledger/transfers/auth-7/post', undefined, OWNER_B.token)).status).toBe(404);
    const after = await ledgerRows();
    expect(after.resolutions).toEqual(before.resolutions);
    expect(after.transfers).toEqual(before.transfers);
  });

  it('bad input is a 400 naming the field and writes nothing; engine names stay reserved', async () => {
    const before = await ledgerRows();
    for (const [path, body] of [
      [
        '/v1/ledger/transfers',
        { id: 'x', debitAccount: 'a', creditAccount: 'b', amount: 0, currency: 'EUR', pending: true },
      ],
      [
        '/v1/ledger/transfers',
        { id: 'x', debitAccount: 'a', creditAccount: 'b', amount: 1, currency: 'EUR', pending: 'yes' },
      ],
      [
        '/v1/ledger/transfers',
        {
          id: 'x',
          debitAccount: 'a',
          creditAccount: 'b',
          amount: 1,
          currency: 'EUR',
          pending: true,
          effectiveAt: '2026-01-01T00:00:00Z',
        },
      ],
      ['/v1/ledger/transfers/auth-7/post', { amount: 0 }],
      ['/v1/ledger/transfers/auth-7/post', { amount: '5' }],
      ['/v1/ledger/transfers/auth-7/void', { reason: 5 }],
      ['/v1/ledger/transfers/auth-7/void', { other: 1 }],
    ] as const) {
      const r = await post(path, body);
      expect(r.status, `${path} ${JSON.stringify(body)}`).toBe(400);
      expect(((await r.json()) as { code: string }).code).toBe('request_invalid');
    }
    const reserved = await hold('x', 1, { debitAccount: 'usage:USD_MICROS', currency: 'USD_MICROS' });
    expect(reserved.status).toBe(422);
    expect((await post('/v1/ledger/transfers/attempt-cost:1/void')).status).toBe(422);
    expect(await ledgerRows()).toEqual(before);
  });

  it('two concurrent posts of one hold record one transfer', async () => {
    await hold('auth-8', 900);
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        post('/v1/ledger/transfers/auth-8/post', { amount: 100 + (i % 2) }),
      ),
    );
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    const { rows } = await app.pool.query(`SELECT amount FROM onejob.ledger_transfers WHERE id = 'auth-8'`);
    expect(rows).toHaveLength(1);
  });
});
