// The busy worker's one statement per turn: the completion of a batch of results and the
// claim of as many queued jobs, committed together or not at all. Run on the shared pool
// (planned per batch) and on kept-plan connections (planned once).
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeptPlanPool } from '../../src/db/keptPlanPool.js';
import type { Offered } from '../../src/jobs/completeWinners.js';
import { type ClaimedAttempt, claimQueuedJobs } from '../../src/worker/claimJobs.js';
import { completeAndClaim } from '../../src/worker/completeAndClaim.js';
import { startTestApp, type TestApp } from '../helpers/startTestApp.js';
import { configWith } from './attemptTestKit.js';

let t: TestApp;
let kept: pg.Pool;
beforeAll(async () => {
  t = await startTestApp({
    config: configWith(
      { pay: { kind: 'simulated' } },
      { charge: { kind: 'http', providers: ['pay'], effect: 'exclusive', maxAttempts: 3 } },
    ),
  });
  kept = createKeptPlanPool({ connectionString: t.db.url, max: 2 });
});
afterAll(async () => {
  await kept?.end();
  await t?.close();
});

const worker = (limit: number, providers = ['pay']) => ({
  id: 'w-test',
  leaseMs: 60_000,
  limit,
  rotation: async () => providers,
});

const queue = (prefix: string, n: number) =>
  Promise.all(
    Array.from({ length: n }, (_, i) =>
      t.onejob.jobs.create({
        ownerId: 'owner-a',
        idempotencyKey: `${prefix}-${i}`,
        operation: 'charge',
        input: { amount: i + 1 },
      }),
    ),
  );

const offer = (c: ClaimedAttempt): Offered => ({
  attempt: c.attempt,
  result: { paid: c.job.id },
  traceparent: null,
});

const states = async (ids: string[]) => {
  const { rows } = await t.onejob.pool.query<{ id: string; state: string }>(
    'SELECT id, state FROM onejob.jobs WHERE id = ANY($1::uuid[])',
    [ids],
  );
  return Object.fromEntries(rows.map((r) => [r.id, r.state]));
};

describe.each([
  ['the shared pool, planned per batch', () => ({ db: t.onejob.pool as pg.Pool, keptPlans: false })],
  ['kept-plan connections', () => ({ db: kept, keptPlans: true })],
])('completing a batch and claiming the next jobs in one statement, on %s', (label, target) => {
  const prefix = label.startsWith('kept') ? 'kept' : 'shared';

  it('the batch completes its attempts and claims as many queued jobs, whose attempts run under the lease', async () => {
    const jobs = (await queue(`${prefix}-full`, 5)).map((c) => c.job.id);
    const first = await claimQueuedJobs(target(), t.onejob.operations, worker(2));
    expect(first).toHaveLength(2);
    const done = await completeAndClaim(target(), t.onejob.operations, first.map(offer), worker(2));
    expect([...done.winners.keys()].sort()).toEqual(first.map((c) => c.attempt.id).sort());
    expect([...done.winners.values()]).toEqual([2, 2]);
    expect(done.claimed).toHaveLength(2);
    for (const c of done.claimed) {
      expect(c.attempt.state).toBe('running');
      expect(c.attempt.lease_owner).toBe('w-test');
      expect(c.job.operation).toBe('charge');
      expect(first.map((f) => f.job.id)).not.toContain(c.job.id);
    }
    const after = await states(jobs);
    expect(first.map((c) => after[c.job.id])).toEqual(['succeeded', 'succeeded']);
    expect(done.claimed.map((c) => after[c.job.id])).toEqual(['running', 'running']);
    expect(Object.values(after).filter((s) => s === 'queued')).toHaveLength(1);
    // Each win wrote its audit row and its public event, as the completion alone does.
    const { rows } = await t.onejob.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM onejob.job_events e JOIN onejob.outbox o ON o.id = e.id
       WHERE e.type = 'succeeded' AND e.job_id = ANY($1::uuid[])`,
      [first.map((c) => c.job.id)],
    );
    expect(rows[0]!.n).toBe(2);
    // Drain what is left so the next test starts from an empty queue.
    const rest = await completeAndClaim(target(), t.onejob.operations, done.claimed.map(offer), worker(2));
    expect(rest.claimed).toHaveLength(1);
    await completeAndClaim(target(), t.onejob.operations, rest.claimed.map(offer), worker(1));
  });

  it('a claim that fails leaves the completion unwritten: nothing of the statement commits', async () => {
    await queue(`${prefix}-atomic`, 3);
    const first = await claimQueuedJobs(target(), t.onejob.operations, worker(1));
    expect(first).toHaveLength(1);
    // No provider to give the next attempt: the claim's provider choice divides by zero.
    await expect(
      completeAndClaim(target(), t.onejob.operations, first.map(offer), worker(2, [])),
    ).rejects.toThrow(/division by zero/);
    const [claimed] = first;
    expect((await states([claimed!.job.id]))[claimed!.job.id]).toBe('running');
    const { rows } = await t.onejob.pool.query<{ state: string }>(
      'SELECT state FROM onejob.attempts WHERE id = $1',
      [claimed!.attempt.id],
    );
    expect(rows[0]!.state).toBe('running');
    const { rows: queued } = await t.onejob.pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM onejob.jobs WHERE state = 'queued' AND idempotency_key LIKE $1",
      [`${prefix}-atomic-%`],
    );
    expect(queued[0]!.n).toBe(2);
    // The same batch then goes through.
    const done = await completeAndClaim(target(), t.onejob.operations, first.map(offer), worker(2));
    expect(done.winners.size).toBe(1);
    expect(done.claimed).toHaveLength(2);
    await completeAndClaim(target(), t.onejob.operations, done.claimed.map(offer), worker(0));
  });
});
