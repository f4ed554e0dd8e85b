// providers.<name>.maxConcurrency holds across worker processes: two processes with 16
// slots each and a provider capped at 3 never have more than 3 calls open at the provider,
// which sees every call arrive and counts those it has not answered yet.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OnejobConfig } from '../../src/config/types.js';
import { type FakePaymentServer, startFakePaymentServer } from '../helpers/fakePaymentServer.js';
import { type SpawnedOnejob, serveRole, writeConfigFile } from '../helpers/spawnOnejob.js';
import { startTestApp, type TestApp } from '../helpers/startTestApp.js';
import { configWith, until } from './attemptTestKit.js';

const JOBS = 90;
const CAP = 3;
let fake: FakePaymentServer;
let db: TestApp['db'];
let t: TestApp;
let config: OnejobConfig;
const workers: SpawnedOnejob[] = [];
/** Calls the provider has received and not answered yet, and the most at any moment. */
const open = { now: 0, most: 0 };

beforeAll(async () => {
  fake = await startFakePaymentServer({
    script: async (req) => {
      open.now += 1;
      open.most = Math.max(open.most, open.now);
      // A call that takes a little while, so calls would overlap if nothing held them back.
      await new Promise((resolve) => setTimeout(resolve, 15));
      open.now -= 1;
      return { status: 200, body: { chargeId: `ch_${req.index}` } };
    },
  });
  config = configWith(
    { pay: { kind: 'http', url: fake.chargeUrl, maxConcurrency: CAP } },
    { charge: { kind: 'http', providers: ['pay'], effect: 'exclusive', attemptTimeoutMs: 20_000 } },
    { leaseMs: 30_000, pollMs: 20, concurrency: 16 },
  );
  t = await startTestApp({ config });
  db = t.db;
});
afterAll(async () => {
  await Promise.all(workers.map((w) => w.kill('SIGTERM')));
  await t?.close();
  await fake?.close();
});

describe('provider concurrency across processes', () => {
  it(`two worker processes with 16 slots each and a provider capped at ${CAP}: never more than ${CAP} calls open at once, and every job succeeds`, {
    timeout: 180_000,
  }, async () => {
    const file = await writeConfigFile(config);
    for (let w = 0; w < 2; w++) {
      workers.push(
        serveRole('worker', file, {
          DATABASE_URL: db.url,
          ONEJOB_API_KEYS: 'token-a=owner-a',
          LOG_LEVEL: 'info',
        }),
      );
    }
    // Both take part from the first job: the cap must hold across them, not in one of them.
    await Promise.all(workers.map((w) => w.waitForOutput(/worker started/)));
    await Promise.all(
      Array.from({ length: JOBS }, (_, i) =>
        t.onejob.jobs.create({
          ownerId: i % 2 === 0 ? 'owner-a' : 'owner-b',
          idempotencyKey: `capped-${i}`,
          operation: 'charge',
          input: { amount: i + 1 },
        }),
      ),
    );
    await until(
      'every job to succeed',
      async () => {
        const { rows } = await t.onejob.pool.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM onejob.jobs WHERE state <> 'succeeded'",
        );
        return rows[0]!.n === 0;
      },
      150_000,
    );
    expect(fake.calls()).toHaveLength(JOBS);
    expect(open.most).toBeLessThanOrEqual(CAP);
    // The cap was reached, and both processes took part: the limit held across them.
    expect(open.most).toBe(CAP);
    const { rows } = await t.onejob.pool.query<{ n: number }>(
      `SELECT count(DISTINCT split_part(lease_owner, ':', 2))::int AS n FROM onejob.attempts`,
    );
    expect(rows[0]!.n).toBe(2);
  });
});
