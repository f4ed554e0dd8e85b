// One owner's backlog does not delay another owner's job: while owner A's 20,000 queued
// jobs drain, each of owner B's jobs is started within a claim or two of its creation, and
// A's backlog still completes. Counted, not timed: the A attempts that started between
// B's job being created and its own attempt starting (a first-come worker would start
// every A job queued before it). The time it takes is the bench's (docs/benchmarks.md).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/startTestApp.js';
import { configWith, until } from './attemptTestKit.js';

const BACKLOG = 20_000;
const B_JOBS = 20;
const CONCURRENCY = 8;
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({
    config: configWith(
      { pay: { kind: 'simulated' } },
      { charge: { kind: 'http', providers: ['pay'], effect: 'exclusive' } },
      { leaseMs: 10_000, pollMs: 50, concurrency: CONCURRENCY },
    ),
  });
  // A's backlog, straight in SQL, as a batch import or a worker down for a while leaves it.
  await t.onejob.pool.query(
    `INSERT INTO onejob.jobs (id, owner_id, idempotency_key, fingerprint, operation, input, created_at, run_after)
     SELECT gen_random_uuid(), 'owner-a', 'backlog-' || g, 'f', 'charge', '{}',
            now() - interval '1 minute' + make_interval(secs => g * 0.001), now() - interval '1 minute'
     FROM generate_series(1, $1::int) g`,
    [BACKLOG],
  );
});
afterAll(async () => {
  await t?.close();
});

const count = async (sql: string, params: unknown[] = []) =>
  (await t.onejob.pool.query<{ n: number }>(sql, params)).rows[0]!.n;

describe('owners in turn', () => {
  it(`owner B's jobs start within a claim or two while owner A's ${BACKLOG}-job backlog drains, and the backlog still completes`, {
    timeout: 600_000,
  }, async () => {
    t.onejob.attempts.startWorker();
    await until(
      "A's drain to be under way",
      async () =>
        (await count("SELECT count(*)::int AS n FROM onejob.jobs WHERE state = 'succeeded'")) >= 200,
      60_000,
    );
    const bIds: string[] = [];
    for (let i = 0; i < B_JOBS; i++) {
      const { job } = await t.onejob.jobs.create({
        ownerId: 'owner-b',
        idempotencyKey: `b-${i}`,
        operation: 'charge',
        input: { n: i },
      });
      bIds.push(job.id);
      const settled = await t.onejob.jobs.wait('owner-b', job.id, 30_000);
      expect(settled.state).toBe('succeeded');
    }
    // A was still draining when B's last job settled: B did not simply come after it.
    const queuedA = await count(
      "SELECT count(*)::int AS n FROM onejob.jobs WHERE owner_id = 'owner-a' AND state = 'queued'",
    );
    expect(queuedA).toBeGreaterThan(1_000);

    // Per B job: the A attempts that started after it was created and before its attempt.
    const { rows } = await t.onejob.pool.query<{ key: string; ahead: number }>(
      `SELECT j.idempotency_key AS key,
              (SELECT count(*)::int FROM onejob.attempts a
               WHERE a.owner_id = 'owner-a' AND a.started_at > j.created_at AND a.started_at < b.started_at) AS ahead
       FROM onejob.jobs j JOIN onejob.attempts b ON b.job_id = j.id AND b.n = 1
       WHERE j.id = ANY($1::uuid[])`,
      [bIds],
    );
    expect(rows).toHaveLength(B_JOBS);
    // A worker turn claims at most its free slots: a few turns of 8, never the backlog.
    for (const row of rows) expect(row.ahead, row.key).toBeLessThanOrEqual(4 * CONCURRENCY);

    await until(
      "A's backlog to complete",
      async () =>
        (await count(
          "SELECT count(*)::int AS n FROM onejob.jobs WHERE owner_id = 'owner-a' AND state = 'succeeded'",
        )) === BACKLOG,
      540_000,
    );
  });
});
