import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OnejobConfig } from '../../src/config/types.js';
import { type FakePaymentServer, startFakePaymentServer } from '../helpers/fakePaymentServer.js';
import { type SpawnedOnejob, serveRole, writeConfigFile } from '../helpers/spawnOnejob.js';
import { startTestApp, type TestApp } from '../helpers/startTestApp.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';
import { configWith, exclusiveOnPay, until } from './attemptTestKit.js';

const JOBS = 500;
const WORKERS = 4;
let fake: FakePaymentServer;
let db: TestDatabase;
let t: TestApp;
let config: OnejobConfig;
const workers: SpawnedOnejob[] = [];

beforeAll(async () => {
  fake = await startFakePaymentServer({
    script: (req) => ({ status: 200, body: { chargeId: `ch_${req.index}` }, delayMs: req.index % 7 }),
  });
  db = await createTestDatabase();
  config = configWith(
    { pay: { kind: 'http', url: fake.chargeUrl } },
    {
      charge: exclusiveOnPay({ attemptTimeoutMs: 20_000, maxAttempts: 3 }),
    },
    { leaseMs: 5_000, pollMs: 20, concurrency: 8 },
  );
  t = await startTestApp({ config, db });
});
afterAll(async () => {
  await Promise.all(workers.map((w) => w.kill('SIGTERM')));
  await t?.close();
  await db?.drop();
  await fake?.close();
});

describe('many workers, many jobs', () => {
  it(`${WORKERS} worker processes and ${JOBS} exclusive jobs: one winner per job, at most one provider request per job`, {
    timeout: 240_000,
  }, async () => {
    for (let i = 0; i < JOBS; i += 50) {
      await Promise.all(
        Array.from({ length: 50 }, (_, k) =>
          t.onejob.jobs.create({
            ownerId: 'owner-a',
            idempotencyKey: `bulk-${i + k}`,
            operation: 'charge',
            input: { amount: i + k + 1 },
          }),
        ),
      );
    }
    const file = await writeConfigFile(config);
    for (let w = 0; w < WORKERS; w++) {
      workers.push(
        serveRole('worker', file, {
          DATABASE_URL: db.url,
          ONEJOB_API_KEYS: 'token-a=owner-a',
          LOG_LEVEL: 'warn',
        }),
      );
    }
    const t0 = Date.now();
    await until(
      'every job to finish',
      async () => {
        const { rows } = await t.onejob.pool.query(
          `SELECT count(*)::int AS n FROM onejob.jobs WHERE state NOT IN ('succeeded', 'failed', 'cancelled', 'unknown')`,
        );
        if (process.env.DEBUG_PROGRESS) console.log(Date.now() - t0, rows[0].n, fake.calls().length);
        return rows[0].n === 0;
      },
      200_000,
    );
    if (process.env.DEBUG_PROGRESS)
      console.log(`all ${JOBS} jobs finished ${Date.now() - t0} ms after the workers were spawned`);

    const { rows: jobs } = await t.onejob.pool.query(`
      SELECT j.id, j.state, j.completed_by,
        (SELECT count(*)::int FROM onejob.attempts a WHERE a.job_id = j.id) AS attempts,
        (SELECT count(*)::int FROM onejob.attempts a WHERE a.job_id = j.id AND a.state = 'succeeded') AS winners,
        (SELECT a.id FROM onejob.attempts a WHERE a.job_id = j.id AND a.state = 'succeeded') AS winner
      FROM onejob.jobs j`);
    expect(jobs).toHaveLength(JOBS);
    for (const job of jobs) {
      expect(job).toMatchObject({ state: 'succeeded', attempts: 1, winners: 1 });
      expect(job.completed_by).toBe(job.winner);
    }
    const perJob = new Map<string, number>();
    for (const call of fake.calls()) {
      const key = String(call.headers['idempotency-key']);
      perJob.set(key, (perJob.get(key) ?? 0) + 1);
    }
    expect(perJob.size).toBe(JOBS);
    expect(Math.max(...perJob.values())).toBe(1);
    // The work really was shared between the processes.
    const { rows: owners } = await t.onejob.pool.query(
      `SELECT count(DISTINCT split_part(lease_owner, ':', 2))::int AS n FROM onejob.attempts`,
    );
    expect(owners[0].n).toBeGreaterThan(1);
  });
});
