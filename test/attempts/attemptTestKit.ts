// Shared pieces of the attempt tests: configs around a fake provider, and reads of the
// job and its audit trail straight from the database.
import { afterAll, beforeAll } from 'vitest';
import type { OnejobConfig, OperationConfig, ProviderConfig } from '../../src/config/types.js';
import { type FakePaymentServer, Gate, startFakePaymentServer } from '../helpers/fakePaymentServer.js';
import { startTestApp, type TestApp } from '../helpers/startTestApp.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';

export function configWith(
  providers: Record<string, ProviderConfig>,
  operations: Record<string, OperationConfig>,
  worker: OnejobConfig['worker'] = { leaseMs: 1_000, pollMs: 20 },
): OnejobConfig {
  return { providers, operations, worker, outbox: { publishers: [{ kind: 'log' }] } };
}

/** An exclusive `http` operation on the provider `pay`, with `options` over those. */
export function exclusiveOnPay(options: Partial<OperationConfig> = {}): OperationConfig {
  return { kind: 'http', providers: ['pay'], effect: 'exclusive', ...options } as OperationConfig;
}

import { until } from '../helpers/until.js';

export { until };

export interface JobJson {
  id: string;
  state: string;
  version: number;
  result: Record<string, unknown> | null;
  completedBy: string | null;
  runAt: string | null;
  attempts: {
    id: string;
    n: number;
    provider: string;
    state: string;
    startedAt: string;
    error: { code?: string } | null;
  }[];
}

export async function createJob(
  t: TestApp,
  key: string,
  operation: string,
  input: Record<string, unknown>,
): Promise<JobJson> {
  const r = await t.request('/v1/jobs', {
    method: 'POST',
    headers: { 'idempotency-key': key },
    json: { operation, input },
  });
  if (r.status !== 202) throw new Error(`POST /v1/jobs answered ${r.status}: ${await r.text()}`);
  return (await r.json()) as JobJson;
}

export async function readJob(t: TestApp, id: string, waitMs = 0): Promise<JobJson> {
  const r = await t.request(`/v1/jobs/${id}${waitMs ? `?waitMs=${waitMs}` : ''}`);
  return (await r.json()) as JobJson;
}

/** Waits until the job is in `state` (GET ?waitMs wakes on settling; running/queued need polling). */
export function jobInState(t: TestApp, id: string, state: string, timeoutMs = 45_000): Promise<JobJson> {
  return until(
    `job ${id} to be ${state}`,
    async () => {
      const job = await readJob(t, id, 500);
      return job.state === state ? job : undefined;
    },
    timeoutMs,
  );
}

export async function events(
  t: TestApp,
  jobId: string,
  type?: string,
): Promise<{ type: string; attempt_id: string | null; data: Record<string, unknown> }[]> {
  const { rows } = await t.onejob.pool.query(
    `SELECT type, attempt_id, data FROM onejob.job_history WHERE job_id = $1 AND ($2::text IS NULL OR type = $2)
     ORDER BY created_at, seq NULLS FIRST, id`,
    [jobId, type ?? null],
  );
  return rows;
}

export async function outboxTypes(t: TestApp, jobId: string): Promise<string[]> {
  const { rows } = await t.onejob.pool.query<{ type: string }>(
    'SELECT type FROM onejob.outbox WHERE subject = $1 ORDER BY seq',
    [jobId],
  );
  return rows.map((r) => r.type);
}

/** Records a passing contract verification, so the failover gate lets `provider` act as a fallback. */
export async function markVerified(t: TestApp, provider: string, operation: string): Promise<void> {
  const { contractHash } = await import('../../src/providers/verification/contractHash.js');
  const { recordVerification } = await import('../../src/providers/verification/verificationStore.js');
  const { v7 } = await import('uuid');
  const op = t.onejob.config.operations[operation]!;
  const pc = t.onejob.config.providers[provider]!;
  await recordVerification(t.onejob.pool, {
    id: v7(),
    provider,
    operation,
    contractHash: contractHash(op, pc),
    model: null,
    passed: true,
    report: { note: 'recorded by the test' },
    requestedBy: 'test',
    startedAt: new Date(),
  });
}

/**
 * An app with one `charge` operation on a fake provider that always succeeds, whose worker
 * polls once an hour: a job it starts was started by a wake-up, never by a poll. Resolves
 * once the worker's notification hub listens, before any job is created.
 */
async function startHourlyPollingApp(): Promise<{ t: TestApp; fake: FakePaymentServer }> {
  const fake = await startFakePaymentServer({ script: () => ({ status: 200, body: { ok: true } }) });
  const t = await startTestApp({
    config: configWith(
      { pay: { kind: 'http', url: fake.chargeUrl } },
      { charge: exclusiveOnPay({ maxAttempts: 1 }) },
      { leaseMs: 5_000, pollMs: 3_600_000 },
    ),
  });
  t.onejob.attempts.startWorker();
  await until('the worker to listen', async () => {
    const { rows } = await t.onejob.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND query ILIKE 'LISTEN%onejob_outbox%'`,
    );
    return rows[0]!.n > 0;
  });
  return { t, fake };
}

/** startHourlyPollingApp for the calling test file: started before its tests, closed after them. */
export function hourlyPollingAppPerFile(): { readonly t: TestApp; readonly fake: FakePaymentServer } {
  let app: { t: TestApp; fake: FakePaymentServer } | undefined;
  beforeAll(async () => {
    app = await startHourlyPollingApp();
  });
  afterAll(async () => {
    await app?.t.close();
    await app?.fake.close();
  });
  const started = () => {
    if (!app) throw new Error('the app runs only while the tests run');
    return app;
  };
  return {
    get t() {
      return started().t;
    },
    get fake() {
      return started().fake;
    },
  };
}

export interface StatusGatedApp {
  readonly fake: FakePaymentServer;
  readonly db: TestDatabase;
  readonly t: TestApp;
  /** The app's configuration, which a spawned worker reads too. */
  readonly config: OnejobConfig;
  /** Holds the fake's status answers (reconciliation) until the test opens it. */
  readonly statusGate: Gate;
}

/**
 * For the calling test file: a fake provider whose status answers wait on a gate, a database,
 * and an app on it configured by `configFor(fake)`; opened and closed around the file's tests.
 */
export function statusGatedAppPerFile(configFor: (fake: FakePaymentServer) => OnejobConfig): StatusGatedApp {
  const statusGate = new Gate();
  let parts: { fake: FakePaymentServer; db: TestDatabase; t: TestApp; config: OnejobConfig } | undefined;
  beforeAll(async () => {
    const fake = await startFakePaymentServer({ statusGate });
    const db = await createTestDatabase();
    const config = configFor(fake);
    parts = { fake, db, config, t: await startTestApp({ config, db }) };
  });
  afterAll(async () => {
    statusGate.open();
    await parts?.t.close();
    await parts?.db.drop();
    await parts?.fake.close();
  });
  const started = () => {
    if (!parts) throw new Error('the app runs only while the tests run');
    return parts;
  };
  return {
    statusGate,
    get fake() {
      return started().fake;
    },
    get db() {
      return started().db;
    },
    get t() {
      return started().t;
    },
    get config() {
      return started().config;
    },
  };
}
