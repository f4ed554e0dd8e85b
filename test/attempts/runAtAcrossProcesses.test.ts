// A job created with runAt in one process starts on time on a worker of another: the
// process that creates it runs no worker, and the worker's engine polls once an hour, so
// only the announcement of the new job (NOTIFY) and the wake-up timer it leads to can
// start the job (docs/attempts.md, "When a job runs").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakePaymentServer, startFakePaymentServer } from '../helpers/fakePaymentServer.js';
import { postJob, startTestApp, type TestApp } from '../helpers/startTestApp.js';
import { startLibrary } from '../library/libraryKit.js';
import { configWith, jobInState, until } from './attemptTestKit.js';

const HOUR = 3_600_000;

let fake: FakePaymentServer;
let api: TestApp;
let worker: Awaited<ReturnType<typeof startLibrary<[]>>>;

beforeAll(async () => {
  fake = await startFakePaymentServer({ script: () => ({ status: 200, body: { ok: true } }) });
  const config = configWith(
    { pay: { kind: 'http', url: fake.chargeUrl } },
    { charge: { kind: 'http', providers: ['pay'], effect: 'exclusive', maxAttempts: 1 } },
    { leaseMs: 5_000, pollMs: HOUR },
  );
  api = await startTestApp({ config });
  worker = await startLibrary([], { db: api.db, config });
  await worker.onejob.start({ roles: ['worker'] });
  await until('the other process to listen', async () => {
    const { rows } = await api.onejob.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND query ILIKE 'LISTEN%onejob_outbox%'`,
    );
    return rows[0]!.n > 0;
  });
});
afterAll(async () => {
  await worker?.close();
  await api?.close();
  await fake?.close();
});

describe('a waiting job across processes', () => {
  it("starts on the other process's worker at its time, never before", async () => {
    const runAt = new Date(Date.now() + 2_000).toISOString();
    const r = await postJob(api, 'across', { operation: 'charge', input: { n: 1 }, runAt });
    expect(r.status).toBe(202);
    const job = (await r.json()) as { id: string };
    const settled = await jobInState(api, job.id, 'succeeded', 30_000);
    expect(fake.calls()).toHaveLength(1);
    expect(fake.calls()[0]!.receivedAt).toBeGreaterThanOrEqual(Date.parse(runAt));
    expect(Date.parse(settled.attempts[0]!.startedAt)).toBeGreaterThanOrEqual(Date.parse(runAt));
  });
});
