// A new job wakes an idle worker: intake announces it after commit (in this process at
// once, to others through the relays' channel), and an idle claim loop takes the
// announcement. The worker here polls once an hour, so a job queued while it waits can
// only run because the announcement woke it (the hub's own tests: jobAnnouncements.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakePaymentServer, startFakePaymentServer } from '../helpers/fakePaymentServer.js';
import { startTestApp, type TestApp } from '../helpers/startTestApp.js';
import { configWith, createJob, jobInState, until } from './attemptTestKit.js';

const HOUR = 3_600_000;

let fake: FakePaymentServer;
let t: TestApp;

beforeAll(async () => {
  fake = await startFakePaymentServer({ script: () => ({ status: 200, body: { ok: true } }) });
  t = await startTestApp({
    config: configWith(
      { pay: { kind: 'http', url: fake.chargeUrl } },
      { charge: { kind: 'http', providers: ['pay'], effect: 'exclusive', maxAttempts: 1 } },
      { leaseMs: 5_000, pollMs: HOUR },
    ),
  });
  t.onejob.attempts.startWorker();
  // The hub's one LISTEN connection is up before any job is created.
  await until('the worker to listen', async () => {
    const { rows } = await t.onejob.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND query ILIKE 'LISTEN%onejob_outbox%'`,
    );
    return rows[0]!.n > 0;
  });
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
});

describe('a new job wakes an idle worker', () => {
  it('jobs created while the worker waits out an hour-long poll run at once, one after another', async () => {
    // Each job is created only after the one before settled, so the worker is idle and
    // back in its pause every time: three hour-long polls unless the creates wake it.
    for (const n of [1, 2, 3]) {
      const job = await createJob(t, `wake-${n}`, 'charge', { amount: n });
      const settled = await jobInState(t, job.id, 'succeeded', 20_000);
      expect(settled.attempts).toHaveLength(1);
    }
    expect(fake.requests.length).toBe(3);
  });
});
