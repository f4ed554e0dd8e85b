import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakePaymentServer, startFakePaymentServer } from '../helpers/fakePaymentServer.js';
import { OWNER_B, startTestApp, type TestApp } from '../helpers/startTestApp.js';
import { configWith, createJob, events, jobInState, outboxTypes } from './attemptTestKit.js';

let fake: FakePaymentServer;
let t: TestApp;

beforeAll(async () => {
  fake = await startFakePaymentServer();
  t = await startTestApp({
    config: configWith(
      {
        pay: { kind: 'http', url: fake.chargeUrl },
        'pay-backup': { kind: 'http', url: `${fake.url}/backup` },
        refused: { kind: 'http', url: 'http://127.0.0.1:1/nothing-listens-here' },
      },
      {
        charge: {
          kind: 'http',
          providers: ['pay', 'pay-backup'],
          effect: 'exclusive',
          attemptTimeoutMs: 5_000,
          maxAttempts: 3,
        },
        flaky: {
          kind: 'http',
          providers: ['refused'],
          effect: 'exclusive',
          attemptTimeoutMs: 5_000,
          maxAttempts: 3,
          retry: { baseDelayMs: 10, maxDelayMs: 20 },
        },
      },
    ),
  });
  // No worker in this file until a test starts one: attempts stay where the API put them.
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
});

const postAttempt = (id: string, body: unknown = {}, token?: string) =>
  t.request(`/v1/jobs/${id}/attempts`, { method: 'POST', json: body, ...(token ? { token } : {}) });

describe('attempts API', () => {
  it('20 concurrent POST /attempts on a job with no live attempt start exactly one', async () => {
    const job = await createJob(t, 'double-click', 'charge', { amount: 100 });
    const responses = await Promise.all(Array.from({ length: 20 }, () => postAttempt(job.id)));
    const bodies = (await Promise.all(responses.map((r) => r.json()))) as { code?: string; n?: number }[];
    expect(responses.filter((r) => r.status === 202)).toHaveLength(1);
    expect(bodies.filter((b) => b.code === 'attempt_in_flight')).toHaveLength(19);
    const { rows } = await t.onejob.pool.query(
      'SELECT n, state, origin FROM onejob.attempts WHERE job_id = $1',
      [job.id],
    );
    expect(rows).toEqual([{ n: 1, state: 'starting', origin: 'manual' }]);
    expect(await events(t, job.id, 'attempt_started')).toHaveLength(1);
  });

  it('a fallback to an unverified provider is 422 provider_not_verified; an unlisted one is provider_unknown', async () => {
    const job = await createJob(t, 'fallback', 'charge', { amount: 100 });
    const unverified = await postAttempt(job.id, { provider: 'pay-backup' });
    expect(unverified.status).toBe(422);
    expect(((await unverified.json()) as { code: string }).code).toBe('provider_not_verified');
    const unlisted = await postAttempt(job.id, { provider: 'refused' });
    expect(((await unlisted.json()) as { code: string }).code).toBe('provider_unknown');
    const { rowCount } = await t.onejob.pool.query('SELECT 1 FROM onejob.attempts WHERE job_id = $1', [
      job.id,
    ]);
    expect(rowCount).toBe(0);
  });

  it("another owner's job is 404 for attempts, abandon and cancel", async () => {
    const job = await createJob(t, 'owned', 'charge', { amount: 100 });
    expect((await postAttempt(job.id, {}, OWNER_B.token)).status).toBe(404);
    expect(
      (await t.request(`/v1/jobs/${job.id}/cancel`, { method: 'POST', token: OWNER_B.token })).status,
    ).toBe(404);
    expect(
      (
        await t.request(`/v1/jobs/${job.id}/attempts/1/abandon`, {
          method: 'POST',
          json: { reason: 'x' },
          token: OWNER_B.token,
        })
      ).status,
    ).toBe(404);
  });

  it('cancel fences live attempts out, answers the same twice, and a finished job refuses with job_completed', async () => {
    const job = await createJob(t, 'cancel-me', 'charge', { amount: 100 });
    expect((await postAttempt(job.id)).status).toBe(202);
    const cancelled = await t.request(`/v1/jobs/${job.id}/cancel`, { method: 'POST' });
    expect(cancelled.status).toBe(200);
    const body = (await cancelled.json()) as {
      state: string;
      version: number;
      attempts: { state: string }[];
    };
    expect(body).toMatchObject({ state: 'cancelled', version: 2, attempts: [{ state: 'abandoned' }] });
    const again = await t.request(`/v1/jobs/${job.id}/cancel`, { method: 'POST' });
    expect(again.status).toBe(200);
    expect(((await again.json()) as { version: number }).version).toBe(2);
    expect(await outboxTypes(t, job.id)).toEqual(['onejob.job.created', 'onejob.job.cancelled']);
    const refused = await postAttempt(job.id);
    expect(((await refused.json()) as { code: string }).code).toBe('job_completed');
    // Illegal moves are refused by the database itself, whoever tries them.
    await expect(
      t.onejob.pool.query(`UPDATE onejob.jobs SET state = 'running' WHERE id = $1`, [job.id]),
    ).rejects.toMatchObject({ code: 'OJ003' });
    await expect(
      t.onejob.pool.query(`UPDATE onejob.attempts SET state = 'running' WHERE job_id = $1`, [job.id]),
    ).rejects.toMatchObject({ code: 'OJ003' });
  });

  it('connection refused is a definite failure: retried with backoff up to maxAttempts, then failed by CAS', async () => {
    const worker = t.onejob.attempts.startWorker({ pollMs: 20, leaseMs: 1_000 });
    try {
      const job = await createJob(t, 'refused-1', 'flaky', { amount: 1 });
      const failed = await jobInState(t, job.id, 'failed');
      expect(failed.attempts.map((a) => [a.n, a.state, a.error?.code])).toEqual([
        [1, 'failed', 'connection_refused'],
        [2, 'failed', 'connection_refused'],
        [3, 'failed', 'connection_refused'],
      ]);
      expect((await events(t, job.id, 'retry_scheduled')).length).toBe(2);
      expect(await outboxTypes(t, job.id)).toEqual(['onejob.job.created', 'onejob.job.failed']);
      const retry = await postAttempt(job.id);
      expect(((await retry.json()) as { code: string }).code).toBe('job_completed');
    } finally {
      await worker.stop();
    }
  });
});
