// The worker holds what a call can cost before making it, in the database, so an owner's
// spending never passes its budget whatever the concurrency (docs/budgets.md).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OnejobConfig } from '../../src/config/types.js';
import { exclusiveOnPay } from '../attempts/attemptTestKit.js';
import { type FakePaymentServer, startFakePaymentServer } from '../helpers/fakePaymentServer.js';
import { OWNER_A, OWNER_B, startTestApp, type TestApp } from '../helpers/startTestApp.js';
import { until } from '../helpers/until.js';

let pay: FakePaymentServer;
let t: TestApp;

beforeAll(async () => {
  pay = await startFakePaymentServer();
  const config = {
    providers: { pay: { kind: 'http', url: `${pay.url}/charge`, prices: { perCallMicros: 100 } } },
    operations: {
      charge: exclusiveOnPay({
        maxAttempts: 3,
        inputSchema: { type: 'object', required: ['n'], properties: { n: { type: 'integer' } } },
      }),
    },
    worker: { concurrency: 16, pollMs: 50 },
  } as OnejobConfig;
  t = await startTestApp({ config });
  await t.onejob.start({ roles: ['worker'] });
});
afterAll(async () => {
  await Promise.all([t?.close(), pay?.close()]);
});

const setBudget = (owner: string, limitMicros: number, period = 'total') =>
  t.onejob.pool.query(
    `INSERT INTO onejob.budgets (owner_id, currency, limit_micros, period) VALUES ($1, 'USD', $2, $3)
     ON CONFLICT (owner_id, currency) DO UPDATE SET limit_micros = excluded.limit_micros, period = excluded.period`,
    [owner, limitMicros, period],
  );

const usage = async (owner: string) =>
  (
    await t.onejob.pool.query<{ spent: string; held: string }>(
      `SELECT coalesce(sum(spent_micros), 0) AS spent, coalesce(sum(held_micros), 0) AS held
       FROM onejob.budget_usage WHERE owner_id = $1 AND currency = 'USD'`,
      [owner],
    )
  ).rows[0]!;

describe('holds before calls', () => {
  it('50 concurrent jobs of a 100-micro call against a budget of 1000: exactly 10 calls are made and succeed, the rest fail budget_exhausted and none is left open', async () => {
    await setBudget(OWNER_A.owner, 1000);
    const before = pay.requests.length;
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        t.request('/v1/jobs', {
          method: 'POST',
          headers: { 'idempotency-key': `fifty-${i}` },
          json: { operation: 'charge', input: { n: i } },
        }),
      ),
    );
    const created = answers.filter((a) => a.status === 202).length;
    const refused = answers.filter((a) => a.status === 402).length;
    expect(created + refused).toBe(50);
    const states = await until('every job to settle', async () => {
      const { rows } = await t.onejob.pool.query<{ state: string; code: string | null; n: number }>(
        `SELECT state, error->>'code' AS code, count(*)::int AS n FROM onejob.jobs
         WHERE owner_id = $1 AND idempotency_key LIKE 'fifty-%' GROUP BY 1, 2`,
        [OWNER_A.owner],
      );
      return rows.some((r) => ['queued', 'running', 'unknown'].includes(r.state)) ? undefined : rows;
    });
    const count = (state: string, code: string | null) =>
      states.find((s) => s.state === state && s.code === code)?.n ?? 0;
    expect(count('succeeded', null)).toBe(10);
    expect(count('failed', 'budget_exhausted')).toBe(created - 10);
    expect(pay.requests.length - before).toBe(10);
    expect(await usage(OWNER_A.owner)).toEqual({ spent: '1000', held: '0' });
    // Every hold of the run ended posted or voided, and the refused ones wrote none.
    const { rows: open } = await t.onejob.pool.query(
      `SELECT p.id FROM onejob.ledger_pending_transfers p
       LEFT JOIN onejob.ledger_pending_resolutions r ON r.owner_id = p.owner_id AND r.pending_id = p.id
       WHERE p.owner_id = $1 AND r.pending_id IS NULL`,
      [OWNER_A.owner],
    );
    expect(open).toEqual([]);
    const { rows: posted } = await t.onejob.pool.query<{ n: number; sum: string }>(
      `SELECT count(*)::int AS n, sum(amount) AS sum FROM onejob.ledger_transfers
       WHERE owner_id = $1 AND id LIKE 'attempt-cost:%'`,
      [OWNER_A.owner],
    );
    expect(posted[0]).toEqual({ n: 10, sum: '1000' });
  });

  it('raising the budget lets the next call through at once, and lowering it below what is spent refuses the next one', async () => {
    await setBudget(OWNER_B.owner, 0);
    const create = async (key: string) => {
      const res = await t.request('/v1/jobs', {
        method: 'POST',
        token: OWNER_B.token,
        headers: { 'idempotency-key': key },
        json: { operation: 'charge', input: { n: 1 } },
      });
      if (res.status === 402) return { state: 'refused', code: 'budget_exhausted' };
      const { id } = (await res.json()) as { id: string };
      return until(`job ${key} to settle`, async () => {
        const { rows } = await t.onejob.pool.query<{ state: string; code: string | null }>(
          `SELECT state, error->>'code' AS code FROM onejob.jobs WHERE id = $1`,
          [id],
        );
        const row = rows[0]!;
        return row.state === 'succeeded' || row.state === 'failed' ? row : undefined;
      });
    };
    expect((await create('b-1')).code).toBe('budget_exhausted');
    await setBudget(OWNER_B.owner, 200);
    expect(await create('b-2')).toEqual({ state: 'succeeded', code: null });
    await setBudget(OWNER_B.owner, 50);
    expect((await create('b-3')).code).toBe('budget_exhausted');
    expect(await usage(OWNER_B.owner)).toEqual({ spent: '100', held: '0' });
  });
});
