// Group commit of ledger transfers: concurrent transfers share one transaction and one
// commit, and each request still gets exactly the answer it would have had alone.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isOnejobError } from '../../src/errors/OnejobError.js';
import { setFailpoints } from '../../src/failpoints/failpoints.js';
import type { TransferRequest } from '../../src/ledger/checkTransferRequest.js';
import type { CreateTransferResult } from '../../src/ledger/createTransfer.js';
import { createTransferBatcher } from '../../src/ledger/createTransferBatcher.js';
import { type BatchCounts, intakeBatches, intakeBatchesSince } from '../helpers/intakeBatches.js';
import { OWNER_A, startTestApp, type TestApp } from '../helpers/startTestApp.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());
afterEach(() => setFailpoints(undefined));

const transfer = (id: string, amount: number, over: Partial<TransferRequest> = {}): TransferRequest => ({
  ownerId: OWNER_A.owner,
  id,
  debitAccount: 'customer:alice',
  creditAccount: 'revenue',
  amount,
  currency: 'USD',
  ...over,
});

const batches = () => intakeBatches(t.onejob.metrics, 'transfers');
const since = (before: BatchCounts) => intakeBatchesSince(t.onejob.metrics, 'transfers', before);

/** Transfers and entries written under an id. */
async function written(id: string) {
  const { rows } = await t.onejob.pool.query<{ transfers: number; entries: number }>(
    `SELECT (SELECT count(*)::int FROM onejob.ledger_transfers WHERE owner_id = $1 AND id = $2) AS transfers,
            (SELECT count(*)::int FROM onejob.ledger_entries WHERE owner_id = $1 AND transfer_id = $2) AS entries`,
    [OWNER_A.owner, id],
  );
  return rows[0]!;
}

type Settled = { ok: CreateTransferResult } | { error: unknown };
const settle = (p: Promise<CreateTransferResult>): Promise<Settled> =>
  p.then(
    (ok) => ({ ok }),
    (error) => ({ error }),
  );
const create = (req: TransferRequest) => t.onejob.ledger.createTransfer(req);

describe('group commit of ledger transfers', () => {
  it('20 concurrent transfers with distinct ids are one batch and each is recorded with its two entries', async () => {
    const before = await batches();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => create(transfer(`distinct-${i}`, i + 1))),
    );
    expect(await since(before)).toEqual({ statements: 1, requests: 20, fallbacks: 0 });
    results.forEach((r, i) => {
      expect(r.replayed).toBe(false);
      expect(r.transfer).toMatchObject({ id: `distinct-${i}`, amount: i + 1, currency: 'USD' });
    });
    for (let i = 0; i < 20; i++) expect(await written(`distinct-${i}`)).toEqual({ transfers: 1, entries: 2 });
    const balance = await t.onejob.ledger.getBalance({ ownerId: OWNER_A.owner, account: 'revenue' });
    expect(balance.balance).toBe((20 * 21) / 2);
  });

  it('one id sent many times in a batch is one transfer: one created answer, the rest replays', async () => {
    const before = await batches();
    const results = await Promise.all(Array.from({ length: 12 }, () => create(transfer('storm', 700))));
    expect(await since(before)).toMatchObject({ statements: 1, requests: 12, fallbacks: 0 });
    expect(results[0]!.replayed).toBe(false);
    expect(results.filter((r) => !r.replayed)).toHaveLength(1);
    expect(new Set(results.map((r) => r.transfer.recordedAt)).size).toBe(1);
    expect(await written('storm')).toEqual({ transfers: 1, entries: 2 });
  });

  it('different fields under an id in the same batch are refused for that request only', async () => {
    const [first, again, other, neighbour] = await Promise.all([
      settle(create(transfer('split', 10))),
      settle(create(transfer('split', 10))),
      settle(create(transfer('split', 11))),
      settle(create(transfer('split-neighbour', 12))),
    ]);
    if (!first || !again || !other || !neighbour) throw new Error('missing answer');
    if (!('ok' in first) || !('ok' in again) || !('ok' in neighbour)) throw new Error('a request failed');
    expect(first.ok.replayed).toBe(false);
    expect(again.ok.replayed).toBe(true);
    expect(neighbour.ok.replayed).toBe(false);
    expect('error' in other && isOnejobError(other.error, 'transfer_exists_with_different_fields')).toBe(
      true,
    );
    expect(await written('split')).toEqual({ transfers: 1, entries: 2 });
  });

  it('an id recorded before the batch replays inside it, with the stored transfer', async () => {
    const earlier = await create(transfer('earlier', 300));
    const before = await batches();
    const [replay, fresh] = await Promise.all([
      create(transfer('earlier', 300)),
      create(transfer('beside-earlier', 301)),
    ]);
    expect(await since(before)).toEqual({ statements: 1, requests: 2, fallbacks: 0 });
    expect(replay).toEqual({ transfer: earlier.transfer, replayed: true });
    expect(fresh.replayed).toBe(false);
  });

  it('a currency that differs from an account fails its own request only; the batch falls back', async () => {
    await create(
      transfer('eur-opens', 5, { debitAccount: 'wallet:eur', creditAccount: 'fx:eur', currency: 'EUR' }),
    );
    const before = await batches();
    const [bad, good1, good2] = await Promise.all([
      settle(create(transfer('usd-into-eur', 5, { debitAccount: 'wallet:eur', currency: 'USD' }))),
      settle(create(transfer('fine-1', 6))),
      settle(create(transfer('fine-2', 7))),
    ]);
    expect(await since(before)).toEqual({ statements: 1, requests: 3, fallbacks: 1 });
    expect('error' in bad! && isOnejobError(bad.error, 'currency_mismatch')).toBe(true);
    expect(good1).toMatchObject({ ok: { replayed: false, transfer: { id: 'fine-1' } } });
    expect(good2).toMatchObject({ ok: { replayed: false, transfer: { id: 'fine-2' } } });
    expect(await written('usd-into-eur')).toEqual({ transfers: 0, entries: 0 });
  });

  it('a batch that fails between its statements writes nothing, and each request then goes alone', async () => {
    setFailpoints('ledger.batch=error');
    const before = await batches();
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) => create(transfer(`fp-${i}`, 40 + i))),
    );
    expect(await since(before)).toEqual({ statements: 1, requests: 5, fallbacks: 1 });
    results.forEach((r, i) => {
      expect(r).toMatchObject({ replayed: false, transfer: { id: `fp-${i}` } });
    });
    for (let i = 0; i < 5; i++) expect(await written(`fp-${i}`)).toEqual({ transfers: 1, entries: 2 });
  });

  it('a bad request is refused before it joins a batch and writes nothing', async () => {
    const before = await batches();
    const [bad, good] = await Promise.all([
      settle(create(transfer('bad-amount', 0))),
      settle(create(transfer('beside-bad', 1))),
    ]);
    expect('error' in bad! && isOnejobError(bad.error, 'request_invalid')).toBe(true);
    expect(good).toMatchObject({ ok: { replayed: false } });
    expect(await since(before)).toEqual({ statements: 1, requests: 1, fallbacks: 0 });
    expect(await written('bad-amount')).toEqual({ transfers: 0, entries: 0 });
  });

  it("a transfer in the caller's transaction is not batched: it rolls back with the caller", async () => {
    const before = await batches();
    const client = await t.onejob.pool.connect();
    try {
      await client.query('BEGIN');
      await t.onejob.ledger.createTransfer(transfer('in-tx', 9), { tx: client });
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
    expect(await since(before)).toEqual({ statements: 0, requests: 0, fallbacks: 0 });
    expect(await written('in-tx')).toEqual({ transfers: 0, entries: 0 });
  });

  it('400 transfers in opposite directions across concurrent batches never deadlock and sum to zero', async () => {
    // Batch b (32 transfers, ids in batch order) walks the four accounts starting at
    // account b: batches in flight together take the totals rows in rotated orders, which
    // deadlocks unless every batch locks them up front in one order.
    const accounts = ['mesh:a', 'mesh:b', 'mesh:c', 'mesh:d'];
    const outcomes: { fellBack: boolean; error?: unknown }[] = [];
    const batcher = createTransferBatcher(t.onejob.pool, {
      maxBatchSize: 32,
      maxInFlight: 4,
      onBatch: (b) => outcomes.push(b),
    });
    const requests = Array.from({ length: 400 }, (_, i) => {
      const b = Math.floor(i / 32);
      const j = i % 32;
      return transfer(`mesh-${String(b).padStart(2, '0')}-${String(j).padStart(2, '0')}`, 1 + (i % 7), {
        debitAccount: accounts[(b + j) % 4]!,
        creditAccount: accounts[(b + j + 1) % 4]!,
      });
    });
    const results = await Promise.all(requests.map((r) => batcher.create(r)));
    expect(results.every((r) => !r.replayed)).toBe(true);
    expect(outcomes.filter((o) => o.fellBack)).toEqual([]);
    expect(outcomes.length).toBeGreaterThan(1);
    const { rows } = await t.onejob.pool.query<{ n: number; total: string }>(
      `SELECT count(*)::int AS n, coalesce(sum(CASE side WHEN 'credit' THEN amount ELSE -amount END), 0) AS total
       FROM onejob.ledger_entries WHERE owner_id = $1 AND account LIKE 'mesh:%'`,
      [OWNER_A.owner],
    );
    expect(rows[0]).toEqual({ n: 800, total: '0' });
    const totals = await t.onejob.pool.query<{ debits: string; credits: string }>(
      `SELECT sum(debits) AS debits, sum(credits) AS credits FROM onejob.ledger_account_totals
       WHERE owner_id = $1 AND account LIKE 'mesh:%'`,
      [OWNER_A.owner],
    );
    const sent = requests.reduce((s, r) => s + r.amount, 0);
    expect(totals.rows[0]).toEqual({ debits: String(sent), credits: String(sent) });
    // Each account's totals (summed per statement by the trigger) match its own entries.
    const mismatched = await t.onejob.pool.query(
      `SELECT t.account FROM onejob.ledger_account_totals t
       JOIN (SELECT account, sum(amount) FILTER (WHERE side = 'debit') AS debits,
                    sum(amount) FILTER (WHERE side = 'credit') AS credits
             FROM onejob.ledger_entries WHERE owner_id = $1 GROUP BY account) e ON e.account = t.account
       WHERE t.owner_id = $1 AND t.account LIKE 'mesh:%' AND (t.debits <> e.debits OR t.credits <> e.credits)`,
      [OWNER_A.owner],
    );
    expect(mismatched.rows).toEqual([]);
  });
});
