import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTransfer } from '../../src/ledger/createTransfer.js';
import { getBalance } from '../../src/ledger/getBalance.js';
import { reverseTransfer } from '../../src/ledger/reverseTransfer.js';
import { startTestApp, type TestApp } from '../helpers/startTestApp.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

interface Balance {
  balance: number;
  debits: number;
  credits: number;
  asOf: string;
}
interface EntryPage {
  items: {
    transferId: string;
    side: string;
    amount: number;
    reverses: string | null;
    reversedBy: string | null;
    reason: string | null;
  }[];
  nextCursor: string | null;
  asOf: string;
}

const post = (path: string, json: unknown) => t.request(path, { method: 'POST', json });
const get = async <T>(path: string) => (await (await t.request(path)).json()) as T;

describe('ledger reversals and as-of reads', () => {
  it('a reversal is a new mirrored transfer; both are listed; balances as of before it are unchanged', async () => {
    expect(
      (
        await post('/v1/ledger/transfers', {
          id: 'bet-1',
          debitAccount: 'player',
          creditAccount: 'house',
          amount: 500,
          currency: 'GBP',
        })
      ).status,
    ).toBe(201);
    const before = await get<Balance>('/v1/ledger/accounts/player');
    expect(before.balance).toBe(-500);
    const entriesBefore = await get<EntryPage>('/v1/ledger/accounts/player/entries');

    const r = await post('/v1/ledger/transfers/bet-1/reverse', {
      id: 'bet-1-void',
      reason: 'match abandoned',
    });
    expect(r.status).toBe(201);
    const reversal = (await r.json()) as {
      debitAccount: string;
      creditAccount: string;
      amount: number;
      reverses: string;
      reason: string;
      recordedAt: string;
    };
    expect(reversal).toMatchObject({
      debitAccount: 'house',
      creditAccount: 'player',
      amount: 500,
      currency: 'GBP',
      reverses: 'bet-1',
      reason: 'match abandoned',
    });
    expect(Date.parse(reversal.recordedAt)).toBeGreaterThan(Date.parse(before.asOf));

    // Now: the books are back to zero, and both transfers are there to read.
    expect(await get<Balance>('/v1/ledger/accounts/player')).toMatchObject({
      balance: 0,
      debits: 500,
      credits: 500,
    });
    const now = await get<EntryPage>('/v1/ledger/accounts/player/entries');
    expect(now.items.map((e) => [e.transferId, e.side, e.reverses, e.reversedBy])).toEqual([
      ['bet-1', 'debit', null, 'bet-1-void'],
      ['bet-1-void', 'credit', 'bet-1', null],
    ]);
    expect(now.items[1]?.reason).toBe('match abandoned');

    // As of the moment read before the reversal, nothing changed, not even the link to it.
    const asOf = encodeURIComponent(before.asOf);
    expect(await get<Balance>(`/v1/ledger/accounts/player?asOf=${asOf}`)).toEqual(before);
    expect((await get<EntryPage>(`/v1/ledger/accounts/player/entries?asOf=${asOf}`)).items).toEqual(
      entriesBefore.items,
    );
    expect(entriesBefore.items.map((e) => [e.transferId, e.reversedBy])).toEqual([['bet-1', null]]);
  });

  it('a second reversal with another id is 409 transfer_already_reversed and writes nothing; the same reversal replays', async () => {
    await post('/v1/ledger/transfers', {
      id: 'fee-1',
      debitAccount: 'client',
      creditAccount: 'fees',
      amount: 30,
      currency: 'USD',
    });
    const first = await post('/v1/ledger/transfers/fee-1/reverse', {
      id: 'fee-1-refund',
      reason: 'goodwill',
    });
    expect(first.status).toBe(201);
    const count = async () =>
      (await t.onejob.pool.query('SELECT count(*)::int AS n FROM onejob.ledger_transfers')).rows[0]
        .n as number;
    const before = await count();

    const second = await post('/v1/ledger/transfers/fee-1/reverse', {
      id: 'fee-1-refund-2',
      reason: 'clicked twice',
    });
    expect(second.status).toBe(409);
    expect(await second.json()).toMatchObject({
      code: 'transfer_already_reversed',
      reversedBy: 'fee-1-refund',
    });

    const retry = await post('/v1/ledger/transfers/fee-1/reverse', {
      id: 'fee-1-refund',
      reason: 'goodwill',
    });
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await retry.json()).toEqual(await first.json());

    const changed = await post('/v1/ledger/transfers/fee-1/reverse', {
      id: 'fee-1-refund',
      reason: 'another reason',
    });
    expect(changed.status).toBe(409);
    expect(((await changed.json()) as { code: string }).code).toBe('transfer_exists_with_different_fields');
    expect(await count()).toBe(before);
    expect(await get<Balance>('/v1/ledger/accounts/fees')).toMatchObject({ balance: 0 });
  });

  it('20 concurrent reversals of one transfer with different ids: exactly one wins, the rest get 409', async () => {
    await post('/v1/ledger/transfers', {
      id: 'dup-1',
      debitAccount: 'd1',
      creditAccount: 'd2',
      amount: 11,
      currency: 'USD',
    });
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        reverseTransfer(t.onejob.pool, {
          ownerId: 'owner-a',
          transferId: 'dup-1',
          id: `dup-1-rev-${i}`,
          reason: 'race',
        }),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results)
      if (r.status === 'rejected') expect(r.reason.code).toBe('transfer_already_reversed');
    const { rows } = await t.onejob.pool.query(
      `SELECT count(*)::int AS n FROM onejob.ledger_transfers WHERE reverses = 'dup-1'`,
    );
    expect(rows[0].n).toBe(1);
    expect(await get<Balance>('/v1/ledger/accounts/d1')).toMatchObject({ balance: 0 });
  });

  it('reversing an unknown transfer is 404; a reversal without a reason is 400', async () => {
    const missing = await post('/v1/ledger/transfers/nope/reverse', { id: 'nope-rev', reason: 'x' });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { code: string }).code).toBe('transfer_not_found');
    await post('/v1/ledger/transfers', {
      id: 'why-1',
      debitAccount: 'w1',
      creditAccount: 'w2',
      amount: 1,
      currency: 'USD',
    });
    for (const body of [{ id: 'why-1-rev' }, { id: 'why-1-rev', reason: '' }, { reason: 'x' }]) {
      const r = await post('/v1/ledger/transfers/why-1/reverse', body);
      expect(r.status).toBe(400);
      expect(((await r.json()) as { code: string }).code).toBe('request_invalid');
    }
  });

  it('effectiveAt is business time and does not move an as-of read, which follows recordedAt', async () => {
    const r = await post('/v1/ledger/transfers', {
      id: 'late-1',
      debitAccount: 'e1',
      creditAccount: 'e2',
      amount: 4,
      currency: 'USD',
      effectiveAt: '2020-01-01T00:00:00Z',
    });
    const body = (await r.json()) as { effectiveAt: string; recordedAt: string };
    expect(body.effectiveAt).toBe('2020-01-01T00:00:00.000Z');
    expect(Date.parse(body.recordedAt)).toBeGreaterThan(Date.parse('2024-01-01T00:00:00Z'));
    // Backdating the business time does not rewrite what the ledger believed in 2021.
    expect(
      await t.request('/v1/ledger/accounts/e2?asOf=2021-01-01T00:00:00Z').then((x) => x.json()),
    ).toMatchObject({ balance: 0 });
    const atRecord = await get<Balance>(`/v1/ledger/accounts/e2?asOf=${encodeURIComponent(body.recordedAt)}`);
    expect(atRecord.balance).toBe(4);
    const justBefore = new Date(Date.parse(body.recordedAt) - 1).toISOString();
    expect(
      (await get<Balance>(`/v1/ledger/accounts/e2?asOf=${encodeURIComponent(justBefore)}`)).balance,
    ).toBe(0);
  });

  it('a transfer recorded right after a read, even within the same millisecond, never changes that read', async () => {
    const move = (i: number) =>
      createTransfer(t.onejob.pool, {
        ownerId: 'owner-a',
        id: `tight-${i}`,
        debitAccount: 'tight-a',
        creditAccount: 'tight-b',
        amount: 1,
        currency: 'USD',
      });
    await move(0);
    for (let i = 1; i <= 50; i++) {
      const read = await getBalance(t.onejob.pool, 'owner-a', 'tight-b');
      await move(i);
      expect(await getBalance(t.onejob.pool, 'owner-a', 'tight-b', read.asOf)).toEqual(read);
    }
  });

  it('entries page with a cursor that keeps the first page asOf', async () => {
    for (let i = 0; i < 5; i++) {
      await post('/v1/ledger/transfers', {
        id: `page-${i}`,
        debitAccount: 'pager',
        creditAccount: `sink-${i}`,
        amount: i + 1,
        currency: 'USD',
      });
    }
    const first = await get<EntryPage>('/v1/ledger/accounts/pager/entries?limit=2');
    expect(first.items.map((e) => e.transferId)).toEqual(['page-0', 'page-1']);
    await post('/v1/ledger/transfers', {
      id: 'page-late',
      debitAccount: 'pager',
      creditAccount: 'sink-0',
      amount: 100,
      currency: 'USD',
    });
    const ids = first.items.map((e) => e.transferId);
    let cursor = first.nextCursor;
    while (cursor) {
      const page = await get<EntryPage>(`/v1/ledger/accounts/pager/entries?limit=2&cursor=${cursor}`);
      expect(page.asOf).toBe(first.asOf);
      ids.push(...page.items.map((e) => e.transferId));
      cursor = page.nextCursor;
    }
    expect(ids).toEqual(['page-0', 'page-1', 'page-2', 'page-3', 'page-4']);
  });
});
