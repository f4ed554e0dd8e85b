import { describe, expect, it } from 'vitest';
import { serveRole, writeConfigFile } from '../helpers/spawnOnejob.js';
import {
  configWith,
  createJob,
  events,
  exclusiveOnPay,
  jobInState,
  outboxTypes,
  statusGatedAppPerFile,
} from './attemptTestKit.js';

const app = statusGatedAppPerFile((fake) =>
  configWith(
    { pay: { kind: 'http', url: fake.chargeUrl, statusUrl: fake.statusUrl } },
    {
      charge: exclusiveOnPay({ attemptTimeoutMs: 10_000, maxAttempts: 3 }),
    },
    { leaseMs: 1_000, pollMs: 20 },
  ),
);

describe('a worker killed after the provider answered', () => {
  it('leaves the attempt unknown after its lease expires, sends no second charge, and statusUrl reconciliation applies the real outcome', async () => {
    const job = await createJob(app.t, 'kill-1', 'charge', { amount: 4200 });
    const file = await writeConfigFile(app.config);
    const child = serveRole('worker', file, {
      DATABASE_URL: app.db.url,
      ONEJOB_API_KEYS: 'token-a=owner-a',
      ONEJOB_FAILPOINTS: 'worker.after_provider_response=kill',
    });
    expect(await child.exited).toBe('SIGKILL');
    // The provider charged and answered; the answer died with the worker.
    expect(app.fake.calls()).toHaveLength(1);
    const charged = app.fake.outcomes.get(job.id);
    expect(charged?.status).toBe(200);
    const { rows: before } = await app.t.onejob.pool.query(
      'SELECT state FROM onejob.attempts WHERE job_id = $1',
      [job.id],
    );
    expect(before).toEqual([{ state: 'running' }]);

    // Another worker sweeps the expired lease: unknown, never failed, and nothing new starts.
    app.t.onejob.attempts.startWorker();
    const unknown = await jobInState(app.t, job.id, 'unknown');
    expect(unknown.attempts).toEqual([
      expect.objectContaining({
        n: 1,
        state: 'unknown',
        error: expect.objectContaining({ code: 'lease_expired' }),
      }),
    ]);
    const refused = await app.t.request(`/v1/jobs/${job.id}/attempts`, { method: 'POST', json: {} });
    expect(((await refused.json()) as { code: string }).code).toBe('attempt_outcome_unknown');
    // Reconciliation asks the provider about the key (held at the gate) instead of charging again.
    const [statusQuery] = await app.fake.waitForRequests(1, (r) => r.method === 'GET');
    expect(statusQuery?.path).toBe(`/charge/${job.id}`);
    expect(app.fake.calls()).toHaveLength(1);

    app.statusGate.open();
    const done = await jobInState(app.t, job.id, 'succeeded');
    expect(done.result).toEqual(charged?.body);
    expect(done.completedBy).toBe(done.attempts[0]?.id);
    expect(app.fake.calls()).toHaveLength(1);
    expect(await outboxTypes(app.t, job.id)).toEqual([
      'onejob.job.created',
      'onejob.job.unknown',
      'onejob.job.succeeded',
    ]);
    expect((await events(app.t, job.id)).map((e) => e.type)).toEqual([
      'created',
      'attempt_started',
      'attempt_unknown',
      'unknown',
      'succeeded',
    ]);
  });
});
