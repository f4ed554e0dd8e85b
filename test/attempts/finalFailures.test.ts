// Failures that are final: an `http` answer listed in the operation's permanentStatuses
// ends the job after one attempt; the same answer without the list is retried as
// before; a pure job fails over from such an answer only to a verified provider.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakePaymentServer, startFakePaymentServer } from '../helpers/fakePaymentServer.js';
import { startTestApp, type TestApp } from '../helpers/startTestApp.js';
import { configWith, createJob, jobInState, markVerified } from './attemptTestKit.js';

let declining: FakePaymentServer;
let backup: FakePaymentServer;
let t: TestApp;

const fast = { baseDelayMs: 1, maxDelayMs: 1 };

beforeAll(async () => {
  declining = await startFakePaymentServer({
    script: () => ({ status: 402, body: { error: 'card_declined' } }),
  });
  backup = await startFakePaymentServer();
  t = await startTestApp({
    config: configWith(
      {
        pay: { kind: 'http', url: declining.chargeUrl },
        verifiedBackup: { kind: 'http', url: backup.chargeUrl },
        unverifiedBackup: { kind: 'http', url: backup.chargeUrl },
      },
      {
        charge: { kind: 'http', providers: ['pay'], maxAttempts: 3, retry: fast, permanentStatuses: [402] },
        chargeRetrying: { kind: 'http', providers: ['pay'], maxAttempts: 3, retry: fast },
        quote: {
          kind: 'http',
          effect: 'pure',
          providers: ['pay', 'verifiedBackup'],
          maxAttempts: 3,
          retry: fast,
          permanentStatuses: [402],
        },
        quoteNoFallback: {
          kind: 'http',
          effect: 'pure',
          providers: ['pay', 'unverifiedBackup'],
          maxAttempts: 3,
          retry: fast,
          permanentStatuses: [402],
        },
      },
    ),
  });
  await markVerified(t, 'verifiedBackup', 'quote');
  t.onejob.attempts.startWorker();
});

afterAll(async () => {
  await t?.close();
  await declining?.close();
  await backup?.close();
});

const callsFor = (server: FakePaymentServer, jobId: string) =>
  server.calls().filter((c) => (c.body as { jobId?: string }).jobId === jobId).length;

async function attemptRows(jobId: string): Promise<{ n: number; provider: string; state: string }[]> {
  const { rows } = await t.onejob.pool.query(
    'SELECT n, provider, state FROM onejob.attempts WHERE job_id = $1 ORDER BY n',
    [jobId],
  );
  return rows;
}

describe('failures that are final', () => {
  it('an http answer listed in permanentStatuses fails the job after exactly one attempt', async () => {
    const created = await createJob(t, 'final-402', 'charge', { amount: 100 });
    const job = (await jobInState(t, created.id, 'failed')) as unknown as { error: Record<string, unknown> };
    expect(await attemptRows(created.id)).toEqual([{ n: 1, provider: 'pay', state: 'failed' }]);
    expect(callsFor(declining, created.id)).toBe(1);
    expect(job.error).toMatchObject({
      code: 'failed_permanently',
      finalBy: 'permanent_status',
      lastAttempt: 1,
      lastError: { code: 'http_402', finalBy: 'permanent_status' },
    });
  });

  it('without permanentStatuses the same answer is retried up to maxAttempts', async () => {
    const created = await createJob(t, 'retry-402', 'chargeRetrying', { amount: 100 });
    const job = (await jobInState(t, created.id, 'failed')) as unknown as { error: Record<string, unknown> };
    expect((await attemptRows(created.id)).map((a) => a.state)).toEqual(['failed', 'failed', 'failed']);
    expect(job.error).toMatchObject({ code: 'attempts_exhausted', finalBy: 'max_attempts', lastAttempt: 3 });
  });

  it('a pure job fails over from a permanent failure to a verified provider', async () => {
    const created = await createJob(t, 'failover-402', 'quote', { amount: 100 });
    await jobInState(t, created.id, 'succeeded');
    expect(await attemptRows(created.id)).toEqual([
      { n: 1, provider: 'pay', state: 'failed' },
      { n: 2, provider: 'verifiedBackup', state: 'succeeded' },
    ]);
  });

  it('a pure job with no verified provider to fail over to fails after exactly one attempt', async () => {
    const created = await createJob(t, 'no-failover-402', 'quoteNoFallback', { amount: 100 });
    const job = (await jobInState(t, created.id, 'failed')) as unknown as { error: Record<string, unknown> };
    expect(await attemptRows(created.id)).toEqual([{ n: 1, provider: 'pay', state: 'failed' }]);
    expect(callsFor(backup, created.id)).toBe(0);
    expect(job.error).toMatchObject({ code: 'failed_permanently', finalBy: 'permanent_status' });
  });
});
