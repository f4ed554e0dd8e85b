// A hedge is a second call, and it is held like the first: near the limit it is not
// started, and the primary's result stands.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OnejobConfig } from '../../src/config/types.js';
import { type FakePaymentServer, Gate, startFakePaymentServer } from '../helpers/fakePaymentServer.js';
import { ADMIN_TOKEN, OWNER_A, startTestApp, type TestApp } from '../helpers/startTestApp.js';
import { until } from '../helpers/until.js';

let primary: FakePaymentServer;
let backup: FakePaymentServer;
let t: TestApp;
const held = new Gate();

beforeAll(async () => {
  // The primary holds its answer until the test opens the gate; the backup answers at once.
  primary = await startFakePaymentServer({
    script: (req) =>
      req.path.includes('fixture')
        ? { status: 200, body: { ok: true } }
        : { status: 200, body: { from: 'primary' }, gate: held },
  });
  backup = await startFakePaymentServer();
  const prices = { perCallMicros: 100 };
  const config = {
    providers: {
      primary: { kind: 'http', url: `${primary.url}/charge`, prices },
      backup: { kind: 'http', url: `${backup.url}/charge`, prices },
    },
    operations: {
      render: {
        kind: 'http',
        providers: ['primary', 'backup'],
        effect: 'pure',
        hedgeAfterMs: 50,
        attemptTimeoutMs: 60_000,
        inputSchema: { type: 'object' },
        contract: { fixtures: [{ input: { fixture: true } }] },
      },
    },
    worker: { pollMs: 20 },
  } as OnejobConfig;
  t = await startTestApp({ config });
  const verified = await t.request('/v1/providers/backup/verify', {
    method: 'POST',
    token: ADMIN_TOKEN,
    json: { operation: 'render' },
  });
  expect(verified.status).toBe(200);
  await t.onejob.start({ roles: ['worker'] });
});
afterAll(async () => {
  held.open();
  await Promise.all([t?.close(), primary?.close(), backup?.close()]);
});

const refusals = async () =>
  (await t.onejob.metrics.registry.getSingleMetric('onejob_budget_refusals_total')?.get())?.values[0]
    ?.value ?? 0;

describe('hedges within a budget', () => {
  it('a hedge whose hold does not fit is not started, and the primary result stands', async () => {
    await t.onejob.pool.query(
      `INSERT INTO onejob.budgets (owner_id, currency, limit_micros, period) VALUES ($1, 'USD', 150, 'day')`,
      [OWNER_A.owner],
    );
    const before = await refusals();
    const res = await t.request('/v1/jobs', {
      method: 'POST',
      headers: { 'idempotency-key': 'hedge-1' },
      json: { operation: 'render', input: { scene: 1 } },
    });
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as { id: string };
    // The hedge timer fired and its hold was refused while the primary call is open.
    await until('the hedge to be refused', async () => (await refusals()) > before);
    held.open();
    const job = await until('the job to succeed', async () => {
      const j = (await (await t.request(`/v1/jobs/${id}`)).json()) as {
        state: string;
        result: unknown;
        attempts: unknown[];
      };
      return j.state === 'succeeded' ? j : undefined;
    });
    expect(job.result).toEqual({ from: 'primary' });
    expect(job.attempts).toHaveLength(1);
    expect(backup.requests.filter((r) => !JSON.stringify(r.body).includes('fixture'))).toHaveLength(0);
    const { rows } = await t.onejob.pool.query(
      'SELECT spent_micros::int AS spent, held_micros::int AS held FROM onejob.budget_usage WHERE owner_id = $1',
      [OWNER_A.owner],
    );
    expect(rows).toEqual([{ spent: 100, held: 0 }]);
  });
});
