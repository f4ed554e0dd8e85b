import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payloadDigest } from '../../src/jobs/attemptRow.js';
import { type FakePaymentServer, Gate, startFakePaymentServer } from '../helpers/fakePaymentServer.js';
import { startTestApp, type TestApp } from '../helpers/startTestApp.js';
import {
  configWith,
  createJob,
  events,
  exclusiveOnPay,
  jobInState,
  outboxTypes,
  readJob,
  until,
} from './attemptTestKit.js';

let fake: FakePaymentServer;
let t: TestApp;
const lateAnswer = new Gate();

beforeAll(async () => {
  fake = await startFakePaymentServer({
    script: (req) =>
      req.index === 0
        ? { status: 200, body: { chargeId: 'ch_late' }, gate: lateAnswer }
        : { status: 200, body: { chargeId: `ch_${req.index + 1}` } },
  });
  t = await startTestApp({
    config: configWith(
      // No statusUrl and not idempotent: nothing can reconcile, so only a person resolves the unknown.
      { pay: { kind: 'http', url: fake.chargeUrl } },
      {
        charge: exclusiveOnPay({
          // The first answer is gated, so it times out whatever the deadline; the second must beat it even on a loaded machine.
          attemptTimeoutMs: 3_000,
          maxAttempts: 3,
          // Retries far in the future: the only new attempt is the one the test starts.
          retry: { baseDelayMs: 600_000, maxDelayMs: 600_000 },
        }),
      },
      { leaseMs: 3_000, pollMs: 20, graceMs: 30_000 },
    ),
  });
  t.onejob.attempts.startWorker();
});
afterAll(async () => {
  lateAnswer.open();
  await t?.close();
  await fake?.close();
});

describe('a forced timeout', () => {
  it('leaves the job unknown, blocks new attempts until abandoned, then discards and records the late result', async () => {
    const job = await createJob(t, 'timeout-1', 'charge', { amount: 1999 });
    const [first] = await fake.waitForRequests(1, (r) => r.method === 'POST');
    expect(first?.headers['idempotency-key']).toBe(job.id);
    expect(first?.headers['x-onejob-attempt']).toBe('1');
    expect(first?.headers.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
    expect(first?.body).toEqual({ jobId: job.id, attempt: 1, operation: 'charge', input: { amount: 1999 } });

    // The deadline passes while the provider holds its answer: unknown, never failed.
    const unknown = await jobInState(t, job.id, 'unknown');
    expect(unknown.attempts).toHaveLength(1);
    expect(unknown.attempts[0]).toMatchObject({ n: 1, state: 'unknown', error: { code: 'timeout' } });
    expect(await outboxTypes(t, job.id)).toContain('onejob.job.unknown');

    // The fallback button is refused while the outcome is unknown.
    const refused = await t.request(`/v1/jobs/${job.id}/attempts`, { method: 'POST', json: {} });
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { code: string }).code).toBe('attempt_outcome_unknown');
    // The database refuses it too, whatever the code path: a second live exclusive attempt is a unique violation.
    await expect(
      t.onejob.pool.query(
        `INSERT INTO onejob.attempts (id, job_id, owner_id, n, provider, exclusive, state, job_version)
         SELECT gen_random_uuid(), id, owner_id, 2, 'pay', true, 'starting', 1 FROM onejob.jobs WHERE id = $1`,
        [job.id],
      ),
    ).rejects.toMatchObject({ code: '23505', constraint: 'attempts_one_live_exclusive' });
    expect(fake.calls()).toHaveLength(1);

    // Abandon: the version moves on, so attempt 1 can never complete the job.
    const abandoned = await t.request(`/v1/jobs/${job.id}/attempts/1/abandon`, {
      method: 'POST',
      json: { reason: 'provider support says the charge never settled' },
    });
    expect(abandoned.status).toBe(200);
    const afterAbandon = (await abandoned.json()) as {
      state: string;
      version: number;
      attempts: { state: string }[];
    };
    expect(afterAbandon.version).toBe(unknown.version + 1);
    expect(afterAbandon.state).toBe('queued');
    expect(afterAbandon.attempts[0]?.state).toBe('abandoned');
    const again = await t.request(`/v1/jobs/${job.id}/attempts/1/abandon`, {
      method: 'POST',
      json: { reason: 'twice' },
    });
    expect(again.status).toBe(409);
    expect(((await again.json()) as { code: string }).code).toBe('attempt_not_abandonable');

    // Now a new attempt is allowed, and it completes the job.
    const started = await t.request(`/v1/jobs/${job.id}/attempts`, { method: 'POST', json: {} });
    expect(started.status).toBe(202);
    const attempt2 = (await started.json()) as { id: string; n: number; state: string; provider: string };
    expect(attempt2).toMatchObject({ n: 2, state: 'starting', provider: 'pay' });
    const succeeded = await readJob(t, job.id, 20_000);
    expect(succeeded.state).toBe('succeeded');
    expect(succeeded.completedBy).toBe(attempt2.id);
    expect(succeeded.result).toEqual({ chargeId: 'ch_2' });
    expect(fake.calls().map((c) => c.headers['idempotency-key'])).toEqual([job.id, job.id]);
    expect(fake.calls()[1]?.headers['x-onejob-attempt']).toBe('2');

    // The abandoned attempt's answer finally arrives: discarded, recorded with its digest only.
    lateAnswer.open();
    const [late] = await until('the late result to be recorded', async () => {
      const found = await events(t, job.id, 'late_result_discarded');
      return found.length ? found : undefined;
    });
    expect(late?.data.discardedDigest).toBe(payloadDigest({ chargeId: 'ch_late' }));
    const { rows } = await t.onejob.pool.query(
      'SELECT state, result_digest FROM onejob.attempts WHERE job_id = $1 AND n = 1',
      [job.id],
    );
    expect(rows[0]).toEqual({ state: 'abandoned', result_digest: payloadDigest({ chargeId: 'ch_late' }) });
    const final = await readJob(t, job.id);
    expect(final.result).toEqual({ chargeId: 'ch_2' });
    expect(final.completedBy).toBe(attempt2.id);
    expect((await events(t, job.id, 'abandoned'))[0]?.data.reason).toBe(
      'provider support says the charge never settled',
    );
  });
});
