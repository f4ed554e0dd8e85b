import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngineTransfer, createTransfer } from '../../src/ledger/createTransfer.js';
import { getBalance } from '../../src/ledger/getBalance.js';
import { listCostPostFailures } from '../../src/ledger/listCostPostFailures.js';
import { postAttemptCost } from '../../src/ledger/postAttemptCost.js';
import { postPendingAttemptCosts } from '../../src/ledger/postPendingAttemptCosts.js';
import { retryCostPosts } from '../../src/ledger/retryCostPosts.js';
import { OWNER_B, postJob, startTestApp, type TestApp } from '../helpers/startTestApp.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

const MAX = Number.MAX_SAFE_INTEGER;

function transfer(body: Record<string, unknown>, token?: string) {
  return t.request('/v1/ledger/transfers', {
    method: 'POST',
    json: { currency: 'USD', amount: 100, ...body },
    ...(token ? { token } : {}),
  });
}

async function problem(res: Response) {
  return { status: res.status, ...((await res.json()) as { code: string; detail: string }) };
}

async function finishedAttempt(jobId: string, provider: string, cost: number, finishedAt: string) {
  const { rows } = await t.onejob.pool.query<{ id: string }>(
    `INSERT INTO onejob.attempts (id, job_id, owner_id, n, provider, exclusive, state, job_version, finished_at, cost_micros)
     SELECT gen_random_uuid(), id, owner_id, 1, $2, false, 'succeeded', 1, $3, $4 FROM onejob.jobs WHERE id = $1
     RETURNING id`,
    [jobId, provider, finishedAt, cost],
  );
  return rows[0]!.id;
}

describe('reserved namespaces belong to the engine', () => {
  it.each([
    ['a usage: debit account', { id: 'r1', debitAccount: 'usage:USD_MICROS', creditAccount: 'cash' }],
    [
      'a provider: credit account',
      { id: 'r2', debitAccount: 'cash', creditAccount: 'provider:sim-a:USD_MICROS' },
    ],
    [
      'an attempt-cost: transfer id',
      { id: 'attempt-cost:0190c0de', debitAccount: 'cash', creditAccount: 'bank' },
    ],
  ])(
    'a tenant transfer naming %s is refused with 422 reserved_namespace and writes nothing',
    async (_what, body) => {
      const p = await problem(await transfer(body));
      expect(p).toMatchObject({ status: 422, code: 'reserved_namespace' });
      const { rows } = await t.onejob.pool.query(
        'SELECT 1 FROM onejob.ledger_transfers WHERE owner_id = $1 AND id = $2',
        ['owner-a', body.id],
      );
      expect(rows).toHaveLength(0);
    },
  );

  it("a tenant cannot reverse an attempt's cost, but the engine still posts it", async () => {
    await postAttemptCost(t.onejob.pool, {
      ownerId: 'owner-a',
      attemptId: 'a-reserved',
      provider: 'sim-a',
      costMicros: 700,
    });
    const res = await t.request('/v1/ledger/transfers/attempt-cost:a-reserved/reverse', {
      method: 'POST',
      json: { id: 'undo-cost', reason: 'free money' },
    });
    expect(await problem(res)).toMatchObject({ status: 422, code: 'reserved_namespace' });
    const usage = await t.request('/v1/ledger/accounts/usage:USD_MICROS');
    expect(((await usage.json()) as { balance: number }).balance).toBe(-700);
  });

  it('POST /v1/jobs with an Idempotency-Key in the inbox: namespace is refused and creates no job', async () => {
    const res = await postJob(t, 'inbox:pay:evt_42', { operation: 'summarize', input: { text: 'x' } });
    expect(await problem(res)).toMatchObject({ status: 422, code: 'reserved_namespace' });
    const { rows } = await t.onejob.pool.query('SELECT 1 FROM onejob.jobs WHERE idempotency_key = $1', [
      'inbox:pay:evt_42',
    ]);
    expect(rows).toHaveLength(0);
    await expect(
      t.onejob.jobs.create({
        ownerId: 'owner-a',
        idempotencyKey: 'inbox:pay:evt_43',
        operation: 'summarize',
        input: { text: 'x' },
      }),
    ).rejects.toMatchObject({ code: 'reserved_namespace' });
  });
});

describe('the cost poster isolates each attempt', () => {
  it("one owner's poisoned usage account never holds up another owner's costs; the failure is recorded, counted, skipped and listable", async () => {
    // An account written in another currency before tenants were kept out of usage:*.
    await createEngineTransfer(t.onejob.pool, {
      ownerId: 'owner-b',
      id: 'legacy-forgery',
      debitAccount: 'usage:USD_MICROS',
      creditAccount: 'cash',
      amount: 1,
      currency: 'EUR',
    });
    const jobB = (await (
      await postJob(t, 'poisoned', { operation: 'summarize', input: { text: 'b' } }, OWNER_B.token)
    ).json()) as { id: string };
    const jobA = (await (
      await postJob(t, 'healthy', { operation: 'summarize', input: { text: 'a' } })
    ).json()) as {
      id: string;
    };
    // B's attempt finished first: posted in finish order, it used to fail every batch.
    const poisoned = await finishedAttempt(jobB.id, 'sim-b', 300, '2025-01-01T00:00:00Z');
    await finishedAttempt(jobA.id, 'sim-b', 500, '2025-01-01T00:00:01Z');
    const failures = () => t.onejob.metrics.costPostFailures.get().then((m) => m.values[0]?.value ?? 0);
    const failuresBefore = await failures();

    expect(await postPendingAttemptCosts(t.onejob.pool, t.onejob.config, { metrics: t.onejob.metrics })).toBe(
      1,
    );
    expect((await getBalance(t.onejob.pool, 'owner-a', 'provider:sim-b:USD_MICROS')).balance).toBe(500);
    expect(await failures()).toBe(failuresBefore + 1);

    const listed = await listCostPostFailures(t.onejob.pool);
    expect(listed).toEqual([
      expect.objectContaining({
        attemptId: poisoned,
        ownerId: 'owner-b',
        provider: 'sim-b',
        costMicros: 300,
      }),
    ]);
    expect(listed[0]!.error).toContain('another currency');

    // Skipped by later passes (no new failure counted) until an operator retries it.
    expect(await postPendingAttemptCosts(t.onejob.pool, t.onejob.config, { metrics: t.onejob.metrics })).toBe(
      0,
    );
    expect(await failures()).toBe(failuresBefore + 1);
    expect(await retryCostPosts(t.onejob.pool, [poisoned])).toBe(1);
    expect(await postPendingAttemptCosts(t.onejob.pool, t.onejob.config, { metrics: t.onejob.metrics })).toBe(
      0,
    );
    expect(await failures()).toBe(failuresBefore + 2);
  });
});

describe('ledger amounts stay exact', () => {
  it('a second transfer of 2^53 - 1 into one account is 422 ledger_amount_out_of_range, and the account still reads 200', async () => {
    const first = await transfer({
      id: 'big-1',
      debitAccount: 'whale-1',
      creditAccount: 'vault',
      amount: MAX,
    });
    expect(first.status).toBe(201);
    const second = await transfer({
      id: 'big-2',
      debitAccount: 'whale-2',
      creditAccount: 'vault',
      amount: MAX,
    });
    expect(await problem(second)).toMatchObject({ status: 422, code: 'ledger_amount_out_of_range' });

    const vault = await t.request('/v1/ledger/accounts/vault');
    expect(vault.status).toBe(200);
    expect(await vault.json()).toMatchObject({ balance: MAX, credits: MAX, debits: 0 });
    const entries = await t.request('/v1/ledger/accounts/vault/entries');
    expect(entries.status).toBe(200);
    // Refused whole: the other account was not created either.
    expect((await t.request('/v1/ledger/accounts/whale-2')).status).toBe(404);
  });

  it('of two concurrent transfers of 2^53 - 1 into a new account, exactly one is recorded', async () => {
    const results = await Promise.allSettled(
      ['c-1', 'c-2'].map((id) =>
        createTransfer(t.onejob.pool, {
          ownerId: 'owner-a',
          id,
          debitAccount: `src-${id}`,
          creditAccount: 'race-vault',
          amount: MAX,
          currency: 'USD',
        }),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(results.find((r) => r.status === 'rejected')).toMatchObject({
      reason: { code: 'ledger_amount_out_of_range' },
    });
    expect((await getBalance(t.onejob.pool, 'owner-a', 'race-vault')).credits).toBe(MAX);
  });

  it('a reversal that would take an account past 2^53 - 1 is refused the same way', async () => {
    expect(
      (await transfer({ id: 'rev-1', debitAccount: 'payer', creditAccount: 'payee', amount: MAX })).status,
    ).toBe(201);
    expect(
      (await transfer({ id: 'rev-2', debitAccount: 'payee', creditAccount: 'other', amount: 1 })).status,
    ).toBe(201);
    // Reversing rev-1 debits payee by 2^53 - 1 on top of the 1 it already has.
    const res = await t.request('/v1/ledger/transfers/rev-1/reverse', {
      method: 'POST',
      json: { id: 'rev-1-undo', reason: 'typo' },
    });
    expect(await problem(res)).toMatchObject({ status: 422, code: 'ledger_amount_out_of_range' });
  });
});

describe('ledger input is strict', () => {
  it.each([
    ['true', true],
    ['"12"', '12'],
    ['12.5', 12.5],
  ])('amount %s is refused with 400 and nothing is recorded', async (_label, amount) => {
    const res = await transfer({
      id: `strict-${String(amount)}`,
      debitAccount: 'a',
      creditAccount: 'b',
      amount,
    });
    expect(await problem(res)).toMatchObject({ status: 400, code: 'request_invalid' });
    expect((await t.request(`/v1/ledger/transfers/strict-${String(amount)}`)).status).toBe(404);
  });

  it('the library refuses a string or boolean amount instead of coercing it', async () => {
    for (const amount of ['12', true]) {
      await expect(
        createTransfer(t.onejob.pool, {
          ownerId: 'owner-a',
          id: 'lib-strict',
          debitAccount: 'a',
          creditAccount: 'b',
          amount: amount as unknown as number,
          currency: 'USD',
        }),
      ).rejects.toMatchObject({ code: 'request_invalid' });
    }
  });

  it.each([
    '2025-02-30T10:00:00Z',
    '2025-13-01T00:00:00Z',
    '2025-01-31T24:00:00Z',
    '2025-01-31T10:00:00',
    '9999-12-31T23:59:59-05:00',
  ])('asOf=%s is a 400 naming asOf, before any SQL', async (asOf) => {
    await transfer({ id: 'dated', debitAccount: 'a', creditAccount: 'b' });
    for (const path of ['/v1/ledger/accounts/b', '/v1/ledger/accounts/b/entries']) {
      const p = await problem(await t.request(`${path}?asOf=${encodeURIComponent(asOf)}`));
      expect(p).toMatchObject({ status: 400, code: 'request_invalid' });
      expect(p.detail).toContain('asOf');
    }
  });

  it('an impossible effectiveAt is a 400, and the last instant of year 9999 still reads', async () => {
    const p = await problem(
      await transfer({
        id: 'eff',
        debitAccount: 'a',
        creditAccount: 'b',
        effectiveAt: '2025-02-29T10:00:00Z',
      }),
    );
    expect(p).toMatchObject({ status: 400, code: 'request_invalid' });
    expect(p.detail).toContain('effectiveAt');
    expect((await t.request('/v1/ledger/accounts/b?asOf=9999-12-31T23:59:59Z')).status).toBe(200);
  });

  it('a cursor whose sequence number is past bigint is a 400, not a 500', async () => {
    const cursor = Buffer.from(
      '2025-01-01T00:00:00.000000Z|2025-01-01T00:00:00.000000Z|9999999999999999999',
    ).toString('base64url');
    const p = await problem(await t.request(`/v1/ledger/accounts/b/entries?cursor=${cursor}`));
    expect(p).toMatchObject({ status: 400, code: 'request_invalid' });
  });
});
