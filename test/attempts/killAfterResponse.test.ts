import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OnejobConfig } from '../../src/config/types.js';
import { type FakePaymentServer, Gate, startFakePaymentServer } from '../helpers/fakePaymentServer.js';
import { serveRole, writeConfigFile } from '../helpers/spawnOnejob.js';
import { startTestApp, type TestApp } from '../helpers/startTestApp.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';
import { configWith, createJob, events, exclusiveOnPay, jobInState, outboxTypes } from './attemptTestKit.js';

let fake: FakePaymentServer;
let db: TestDatabase;
let t: TestApp;
let config: OnejobConfig;
const statusGate = new Gate();

beforeAll(async () => {
  fake = await startFakePaymentServer({ statusGate });
  db = await createTestDatabase();
  config = configWith(
    { pay: { kind: 'http', url: fake.chargeUrl, statusUrl: fake.statusUrl } },
    {
      charge: exclusiveOnPay({ attemptTimeoutMs: 10_000, maxAttempts: 3 }),
    },
    { leaseMs: 1_000, pollMs: 20 },
  );
  t = await startTestApp({ config, db });
});
afterAll(async () => {
  statusGate.open();
  await t?.close();
  await db?.drop();
  await fake?.close();
});

describe('a worker killed after the provider answered', () => {
  it('leaves the attempt unknown after its lease expires, sends no second charge, and statusUrl reconciliation applies the real outcome', async () => {
    const job = await createJob(t, 'kill-1', 'charge', { amount: 4200 });
    const file = await writeConfigFile(config);
    const child = serveRole('worker', file, {
      DATABASE_URL: db.url,
      ONEJOB_API_KEYS: 'token-a=owner-a',
      ONEJOB_FAILPOINTS: 'worker.after_provider_response=kill',
    });
    expect(await child.exited).toBe('SIGKILL');
    // The provider charged and answered; the answer died with the worker.
    expect(fake.calls()).toHaveLength(1);
    const charged = fake.outcomes.get(job.id);
    expect(charged?.status).toBe(200);
    const { rows: before } = await t.onejob.pool.query(
      'SELECT state FROM onejob.attempts WHERE job_id = $1',
      [job.id],
    );
    expect(before).toEqual([{ state: 'running' }]);

    // Another worker sweeps the expired lease: unknown, never failed, and nothing new starts.
    t.onejob.attempts.startWorker();
    const unknown = await jobInState(t, job.id, 'unknown');
    expect(unknown.attempts).toEqual([
      expect.objectContaining({
        n: 1,
        state: 'unknown',
        error: expect.objectContaining({ code: 'lease_expired' }),
      }),
    ]);
    const refused = await t.request(`/v1/jobs/${job.id}/attempts`, { method: 'POST', json: {} });
    expect(((await refused.json()) as { code: string }).code).toBe('attempt_outcome_unknown');
    // Reconciliation asks the provider about the key (held at the gate) instead of charging again.
    const [statusQuery] = await fake.waitForRequests(1, (r) => r.method === 'GET');
    expect(statusQuery?.path).toBe(`/charge/${job.id}`);
    expect(fake.calls()).toHaveLength(1);

    statusGate.open();
    const done = await jobInState(t, job.id, 'succeeded');
    expect(done.result).toEqual(charged?.body);
    expect(done.completedBy).toBe(done.attempts[0]?.id);
    expect(fake.calls()).toHaveLength(1);
    expect(await outboxTypes(t, job.id)).toEqual([
      'onejob.job.created',
      'onejob.job.unknown',
      'onejob.job.succeeded',
    ]);
    expect((await events(t, job.id)).map((e) => e.type)).toEqual([
      'created',
      'attempt_started',
      'attempt_unknown',
      'unknown',
      'succeeded',
    ]);
  });
});
