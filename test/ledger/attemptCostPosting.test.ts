import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRoles } from '../../src/engine/startRoles.js';
import { getBalance } from '../../src/ledger/getBalance.js';
import { postPendingAttemptCosts } from '../../src/ledger/postPendingAttemptCosts.js';
import { postJob, startTestApp, type TestApp } from '../helpers/startTestApp.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

async function finishedAttempt(
  jobId: string,
  n: number,
  state: string,
  provider: string,
  cost: number | null,
) {
  await t.onejob.pool.query(
    `INSERT INTO onejob.attempts (id, job_id, owner_id, n, provider, exclusive, state, job_version, finished_at, cost_micros)
     SELECT gen_random_uuid(), id, owner_id, $2, $3, false, $4, 1, now(), $5 FROM onejob.jobs WHERE id = $1`,
    [jobId, n, provider, state, cost],
  );
}

describe('attempt costs reach the ledger', () => {
  it('every finished attempt with a cost is posted once, race losers included, and posting again does nothing', async () => {
    const job = (await (
      await postJob(t, 'costly', { operation: 'summarize', input: { text: 'hello' } })
    ).json()) as { id: string };
    await finishedAttempt(job.id, 1, 'lost_race', 'sim-a', 1_200);
    await finishedAttempt(job.id, 2, 'succeeded', 'sim-b', 800);
    await finishedAttempt(job.id, 3, 'failed', 'sim-b', null);

    const [first, second] = await Promise.all([
      postPendingAttemptCosts(t.onejob.pool, t.onejob.config),
      postPendingAttemptCosts(t.onejob.pool, t.onejob.config),
    ]);
    expect(first + second).toBe(2);
    expect(await postPendingAttemptCosts(t.onejob.pool, t.onejob.config)).toBe(0);

    const usage = await getBalance(t.onejob.pool, 'owner-a', 'usage:USD_MICROS');
    const a = await getBalance(t.onejob.pool, 'owner-a', 'provider:sim-a:USD_MICROS');
    const b = await getBalance(t.onejob.pool, 'owner-a', 'provider:sim-b:USD_MICROS');
    expect(Number(usage.balance)).toBe(-2_000);
    expect(Number(a.balance)).toBe(1_200);
    expect(Number(b.balance)).toBe(800);
  });

  it('a live attempt is not posted until it is over', async () => {
    const job = (await (
      await postJob(t, 'still-running', { operation: 'summarize', input: { text: 'x' } })
    ).json()) as { id: string };
    await t.onejob.pool.query(
      `INSERT INTO onejob.attempts (id, job_id, owner_id, n, provider, exclusive, state, job_version, cost_micros)
       SELECT gen_random_uuid(), id, owner_id, 1, 'sim-a', false, 'running', 1, 500 FROM onejob.jobs WHERE id = $1`,
      [job.id],
    );
    expect(await postPendingAttemptCosts(t.onejob.pool, t.onejob.config)).toBe(0);
  });
  it('a worker role that stops posts the costs of the attempts that finished while it drained', async () => {
    const job = (await (
      await postJob(t, 'finished-while-draining', { operation: 'summarize', input: { text: 'x' } })
    ).json()) as { id: string };
    const o = t.onejob;
    // A worker whose last attempt finishes, with its cost, while it drains: after the cost
    // poster's last regular pass (its first comes a second after start, well after this).
    const roles = await startRoles(
      {
        pool: o.pool,
        config: o.config,
        metrics: o.metrics,
        logger: o.logger,
        wakeups: o.wakeups,
        attempts: {
          startWorker: () => ({
            id: 'draining',
            wake() {},
            stop: () => finishedAttempt(job.id, 1, 'succeeded', 'sim-a', 700),
          }),
        },
      },
      { roles: ['worker'] },
    );
    await roles.stop();
    const { rows } = await o.pool.query<{ posted: boolean }>(
      'SELECT cost_posted_at IS NOT NULL AS posted FROM onejob.attempts WHERE job_id = $1',
      [job.id],
    );
    expect(rows).toEqual([{ posted: true }]);
  });
});
