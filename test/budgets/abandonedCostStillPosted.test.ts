// A voided hold leaves the ledger whole: an attempt abandoned, or cancelled with its job,
// after its call reported a cost still has that cost posted by the cost poster, once,
// and the cancelled event names each voided hold.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OnejobConfig } from '../../src/config/types.js';
import { attemptCostTransferId } from '../../src/ledger/postAttemptCost.js';
import { postPendingAttemptCosts } from '../../src/ledger/postPendingAttemptCosts.js';
import {
  configWith,
  createJob,
  events,
  exclusiveOnPay,
  jobInState,
  until,
} from '../attempts/attemptTestKit.js';
import { type FakePaymentServer, startFakePaymentServer } from '../helpers/fakePaymentServer.js';
import { OWNER_A, startTestApp, type TestApp } from '../helpers/startTestApp.js';

const PER_CALL = 100;

let fake: FakePaymentServer;
let t: TestApp;

beforeAll(async () => {
  // A 500 is ambiguous: the attempt is unknown, priced at the per-call price.
  fake = await startFakePaymentServer({ script: () => ({ status: 500, body: { error: 'oops' } }) });
  const config = configWith(
    { pay: { kind: 'http', url: fake.chargeUrl, prices: { perCallMicros: PER_CALL } } } as NonNullable<
      OnejobConfig['providers']
    >,
    {
      charge: exclusiveOnPay({ attemptTimeoutMs: 10_000, maxAttempts: 1 }),
    },
    { leaseMs: 5_000, pollMs: 20 },
  );
  t = await startTestApp({ config });
  await t.onejob.pool.query(
    `INSERT INTO onejob.budgets (owner_id, currency, limit_micros, period) VALUES ($1, 'USD', 1000, 'total')`,
    [OWNER_A.owner],
  );
  await t.onejob.start({ roles: ['worker'] });
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
});

const usage = async () =>
  (
    await t.onejob.pool.query<{ spent: string; held: string }>(
      `SELECT coalesce(sum(spent_micros), 0)::int AS spent, coalesce(sum(held_micros), 0)::int AS held
       FROM onejob.budget_usage WHERE owner_id = $1`,
      [OWNER_A.owner],
    )
  ).rows[0];

/**
 * The attempt's cost transfers once posted: a pass here, or the worker's own poster's pass
 * (which may hold the attempt's row while this one runs, so this one skips it).
 */
async function postedCost(attemptId: string): Promise<{ amount: number }[]> {
  return until('the cost to be posted', async () => {
    await postPendingAttemptCosts(t.onejob.pool, t.onejob.config);
    const { rows } = await t.onejob.pool.query<{ amount: number }>(
      'SELECT amount::int FROM onejob.ledger_transfers WHERE owner_id = $1 AND id = $2',
      [OWNER_A.owner, attemptCostTransferId(attemptId)],
    );
    return rows.length > 0 ? rows : undefined;
  });
}

describe('costs of attempts whose hold was voided', () => {
  it("an abandoned attempt's reported cost is posted once by the cost poster after its hold is voided", async () => {
    const job = await createJob(t, 'voided-1', 'charge', { amount: 1 });
    const unknown = await jobInState(t, job.id, 'unknown');
    const attemptId = unknown.attempts[0]!.id;
    expect(await usage()).toEqual({ spent: 0, held: PER_CALL });

    const answer = await t.request(`/v1/jobs/${job.id}/attempts/1/abandon`, {
      method: 'POST',
      json: { reason: 'checked with the provider' },
    });
    expect(answer.status).toBe(200);
    expect(await usage()).toEqual({ spent: 0, held: 0 });
    const [abandoned] = await events(t, job.id, 'abandoned');
    expect(abandoned?.data).toMatchObject({ n: 1, holdVoidedMicros: PER_CALL });
    const { rows: resolutions } = await t.onejob.pool.query(
      'SELECT action, amount::int FROM onejob.ledger_pending_resolutions WHERE owner_id = $1 AND pending_id = $2',
      [OWNER_A.owner, attemptCostTransferId(attemptId)],
    );
    expect(resolutions).toEqual([{ action: 'void', amount: 0 }]);

    // The call was answered and priced: the ledger still records what it cost, once.
    expect(await postedCost(attemptId)).toEqual([{ amount: PER_CALL }]);
  });
  it("cancelling a job voids its live attempt's hold, names it in the cancelled event, and its reported cost is still posted once", async () => {
    const job = await createJob(t, 'voided-2', 'charge', { amount: 2 });
    const unknown = await jobInState(t, job.id, 'unknown');
    const attemptId = unknown.attempts[0]!.id;
    const before = await usage();
    expect(before?.held).toBe(PER_CALL);
    const answer = await t.request(`/v1/jobs/${job.id}/cancel`, { method: 'POST', json: {} });
    expect(answer.status).toBe(200);
    expect((await usage())?.held).toBe(0);
    const [cancelled] = await events(t, job.id, 'cancelled');
    expect(cancelled?.data).toMatchObject({
      abandonedAttempts: [{ attemptId, n: 1, holdVoidedMicros: PER_CALL }],
    });
    expect(await postedCost(attemptId)).toEqual([{ amount: PER_CALL }]);
  });
});
