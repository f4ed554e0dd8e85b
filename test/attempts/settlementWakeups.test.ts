// Settlements made by the worker's housekeeping go through the same post-commit seam as
// a provider's answer: a lease that expires wakes the job's long-polls, and a
// reconciliation sends the job's settled wake-up, each right after its commit rather
// than at the waiter's 500 ms re-read. The settling transaction is held on the job's row
// lock (the test's own transaction) while the waiter gets ready; once the test lets it
// go, it reads the job back to back to see when the settlement committed.
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOB_SETTLED_CHANNEL } from '../../src/events/wakeups.js';
import { type FakePaymentServer, Gate, startFakePaymentServer } from '../helpers/fakePaymentServer.js';
import { OWNER_A, startTestApp, type TestApp } from '../helpers/startTestApp.js';
import { configWith, createJob, exclusiveOnPay, jobInState, readJob, until } from './attemptTestKit.js';

/** What "right after commit" means here: far below the 500 ms re-read that is the fallback. */
const WAKE_WITHIN_MS = 100;

let fake: FakePaymentServer;
let t: TestApp;
let listen: pg.Client;
const heard: { payload: string; at: number }[] = [];
const answers = new Gate();
const statusAnswers = new Gate();

beforeAll(async () => {
  fake = await startFakePaymentServer({
    script: () => ({ status: 200, body: { ok: true }, gate: answers }),
    statusGate: statusAnswers,
  });
  t = await startTestApp({
    config: configWith(
      {
        pay: { kind: 'http', url: fake.chargeUrl },
        payWithStatus: { kind: 'http', url: fake.chargeUrl, statusUrl: fake.statusUrl },
      },
      {
        // The call never answers in time: only the lease can end it.
        charge: exclusiveOnPay({ attemptTimeoutMs: 60_000, maxAttempts: 1 }),
        // Times out at once, then reconciliation asks the provider's status endpoint.
        refund: {
          kind: 'http',
          providers: ['payWithStatus'],
          effect: 'exclusive',
          attemptTimeoutMs: 200,
          maxAttempts: 1,
        },
      },
      { leaseMs: 1_000, pollMs: 20, graceMs: 100 },
    ),
  });
  listen = new pg.Client({ connectionString: t.db.url });
  await listen.connect();
  listen.on('notification', (m) => heard.push({ payload: m.payload ?? '', at: performance.now() }));
  await listen.query(`LISTEN ${JOB_SETTLED_CHANNEL}`);
  t.onejob.attempts.startWorker();
});
afterAll(async () => {
  answers.open();
  statusAnswers.open();
  await listen?.end();
  await t?.close();
  await fake?.close();
});

/** Holds job `id`'s row lock in a transaction of the test's own; settling it waits on it. */
async function holdJobLock(id: string): Promise<pg.PoolClient> {
  const client = await t.onejob.pool.connect();
  await client.query('BEGIN');
  await client.query('SELECT 1 FROM onejob.jobs WHERE id = $1 FOR UPDATE', [id]);
  return client;
}

/** Until a transaction of the engine waits for the lock the test holds. */
const settlementBlocked = () =>
  until('a settlement waiting on the job lock', async () => {
    const { rows } = await t.onejob.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
    );
    return rows[0]!.n > 0;
  });

/**
 * Commits the test's transaction, then reads the job back to back until the settlement's
 * commit shows: the time it first did is the settling commit (to within one read).
 */
async function releaseAndSeeSettled(client: pg.PoolClient, id: string, before: string): Promise<number> {
  await client.query('COMMIT');
  try {
    for (;;) {
      const { rows } = await client.query<{ state: string }>('SELECT state FROM onejob.jobs WHERE id = $1', [
        id,
      ]);
      if (rows[0]?.state !== before) return performance.now();
    }
  } finally {
    client.release();
  }
}

describe('settlements from housekeeping wake their waiters after commit', () => {
  it('a lease that expires wakes a waiting long-poll (GET ?waitMs, jobs.wait) within 100 ms of its commit', async () => {
    const job = await createJob(t, 'lease-expiry-1', 'charge', { amount: 1 });
    await fake.waitForRequests(1, (r) => r.method === 'POST');
    const lock = await holdJobLock(job.id);
    // The worker running the call is gone, as far as the database can tell.
    await t.onejob.pool.query(
      `UPDATE onejob.attempts SET lease_owner = 'a-stopped-worker', lease_expires_at = now() - interval '1 second' WHERE job_id = $1`,
      [job.id],
    );
    await settlementBlocked();

    // The long-poll behind GET ?waitMs, in-process: the HTTP round trip is not what is measured.
    const waiting = t.onejob.jobs
      .wait(OWNER_A.owner, job.id, 10_000)
      .then((j) => ({ job: j, at: performance.now() }));
    // The waiter has read the job (still running) and listens: its LISTEN has completed.
    await until('the long-poll listening', async () => {
      const { rows } = await t.onejob.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity
         WHERE datname = current_database() AND application_name = 'onejob-listen' AND state = 'idle' AND query ILIKE 'LISTEN%'`,
      );
      return rows[0]!.n > 0;
    });
    const committed = await releaseAndSeeSettled(lock, job.id, 'running');
    const woken = await waiting;
    expect(woken.job.state).toBe('unknown');
    expect(woken.job.attempts[0]).toMatchObject({ state: 'unknown', error: { code: 'lease_expired' } });
    expect(woken.at - committed).toBeLessThan(WAKE_WITHIN_MS);
  });

  it('a reconciliation that settles an unknown attempt sends the job its settled wake-up within 100 ms of its commit', async () => {
    // (A waiting GET ?waitMs has returned already: unknown ends a wait. What waits on a
    // reconciliation is the relay, woken by the same notification.)
    const job = await createJob(t, 'reconcile-1', 'refund', { amount: 2 });
    await jobInState(t, job.id, 'unknown');
    const lock = await holdJobLock(job.id);
    statusAnswers.open();
    await settlementBlocked();
    const from = heard.length;
    const committed = await releaseAndSeeSettled(lock, job.id, 'unknown');
    const wake = await until(
      'the settled wake-up naming the job',
      async () => heard.slice(from).find((h) => h.payload.split(',').includes(job.id)),
      5_000,
    );
    expect(wake.at - committed).toBeLessThan(WAKE_WITHIN_MS);
    const settled = await readJob(t, job.id);
    expect(settled.state).toBe('succeeded');
  });
});
