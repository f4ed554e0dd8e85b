// An attempt whose outcome is unknown keeps its hold; abandoning it voids the hold, and
// the abandon event says so.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OnejobConfig } from '../../src/config/types.js';
import { exclusiveOnPay } from '../attempts/attemptTestKit.js';
import { type FakePaymentServer, Gate, startFakePaymentServer } from '../helpers/fakePaymentServer.js';
import { OWNER_A, startTestApp, type TestApp } from '../helpers/startTestApp.js';
import { until } from '../helpers/until.js';

let pay: FakePaymentServer;
let t: TestApp;
const never = new Gate();

beforeAll(async () => {
  // The provider takes the charge and never answers: the attempt times out into unknown.
  pay = await startFakePaymentServer({ script: () => ({ status: 200, body: { ok: true }, gate: never }) });
  const config = {
    providers: { pay: { kind: 'http', url: `${pay.url}/charge`, prices: { perCallMicros: 300 } } },
    operations: {
      charge: exclusiveOnPay({ attemptTimeoutMs: 200, inputSchema: { type: 'object' } }),
    },
    worker: { pollMs: 20, graceMs: 100 },
  } as OnejobConfig;
  t = await startTestApp({ config });
  await t.onejob.start({ roles: ['worker'] });
});
afterAll(async () => {
  never.open();
  await Promise.all([t?.close(), pay?.close()]);
});

const usage = async () =>
  (
    await t.onejob.pool.query<{ spent: number; held: number }>(
      'SELECT spent_micros::int AS spent, held_micros::int AS held FROM onejob.budget_usage WHERE owner_id = $1',
      [OWNER_A.owner],
    )
  ).rows[0];

describe('an unknown attempt and its hold', () => {
  it('keeps its hold while unknown; abandoning it voids the hold and the abandon event says so', async () => {
    await t.onejob.pool.query(
      `INSERT INTO onejob.budgets (owner_id, currency, limit_micros, period) VALUES ($1, 'USD', 1000, 'month')`,
      [OWNER_A.owner],
    );
    const res = await t.request('/v1/jobs', {
      method: 'POST',
      headers: { 'idempotency-key': 'abandon-1' },
      json: { operation: 'charge', input: {} },
    });
    const { id } = (await res.json()) as { id: string };
    await until('the attempt to be unknown', async () => {
      const j = (await (await t.request(`/v1/jobs/${id}`)).json()) as { state: string };
      return j.state === 'unknown';
    });
    expect(await usage()).toEqual({ spent: 0, held: 300 });
    const abandoned = await t.request(`/v1/jobs/${id}/attempts/1/abandon`, {
      method: 'POST',
      json: { reason: 'the provider confirmed nothing was charged' },
    });
    expect(abandoned.status).toBe(200);
    expect(await usage()).toEqual({ spent: 0, held: 0 });
    const { rows } = await t.onejob.pool.query(
      `SELECT data->>'holdVoidedMicros' AS voided FROM onejob.job_events WHERE job_id = $1 AND type = 'abandoned'`,
      [id],
    );
    expect(rows).toEqual([{ voided: '300' }]);
    const { rows: resolution } = await t.onejob.pool.query(
      `SELECT action, amount::int AS amount FROM onejob.ledger_pending_resolutions WHERE owner_id = $1`,
      [OWNER_A.owner],
    );
    expect(resolution).toEqual([{ action: 'void', amount: 0 }]);
  });
});
