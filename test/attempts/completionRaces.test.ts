import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTransaction } from '../../src/db/withTransaction.js';
import { payloadDigest } from '../../src/jobs/attemptRow.js';
import { completeAttempt } from '../../src/jobs/completeAttempt.js';
import { startAttempt } from '../../src/jobs/startAttempt.js';
import { markRunning } from '../../src/worker/leases.js';
import { type FakePaymentServer, Gate, startFakePaymentServer } from '../helpers/fakePaymentServer.js';
import { startTestApp, type TestApp } from '../helpers/startTestApp.js';
import {
  configWith,
  createJob,
  events,
  jobInState,
  markVerified,
  outboxTypes,
  until,
} from './attemptTestKit.js';

let fake: FakePaymentServer;
let t: TestApp;
let primaryGate = new Gate();
let sharedGate = new Gate();
let mode: 'reverse' | 'together' = 'reverse';

beforeAll(async () => {
  fake = await startFakePaymentServer({
    script: (req) => {
      const from = req.path.slice(1);
      if (mode === 'together') return { status: 200, body: { from }, gate: sharedGate };
      return from === 'primary'
        ? { status: 200, body: { from }, gate: primaryGate }
        : { status: 200, body: { from } };
    },
  });
  t = await startTestApp({
    config: configWith(
      {
        primary: { kind: 'http', url: `${fake.url}/primary` },
        backup: { kind: 'http', url: `${fake.url}/backup` },
      },
      {
        hedged: {
          kind: 'http',
          providers: ['primary', 'backup'],
          effect: 'pure',
          attemptTimeoutMs: 20_000,
          hedgeAfterMs: 150,
          // Keep the primary's request open after the hedge wins, so its late answer arrives.
          abortLosers: false,
          maxAttempts: 3,
        },
        manual: {
          kind: 'http',
          providers: ['primary', 'backup'],
          effect: 'pure',
          attemptTimeoutMs: 20_000,
          maxAttempts: 3,
        },
        race: {
          kind: 'http',
          providers: ['primary', 'backup'],
          effect: 'pure',
          attemptTimeoutMs: 20_000,
          maxAttempts: 10,
        },
      },
      { leaseMs: 1_000, pollMs: 20, graceMs: 5_000 },
    ),
  });
  for (const op of ['hedged', 'manual', 'race']) await markVerified(t, 'backup', op);
  t.onejob.attempts.startWorker();
});
afterAll(async () => {
  primaryGate.open();
  sharedGate.open();
  await t?.close();
  await fake?.close();
});

describe('completion races', () => {
  it('reverse order: the hedge that leaves second and answers first wins, the primary loses the race and only its digest is kept', async () => {
    mode = 'reverse';
    primaryGate = new Gate();
    const job = await createJob(t, 'reverse-1', 'hedged', { text: 'hello' });
    const [a, b] = await fake.waitForRequests(
      2,
      (r) => r.method === 'POST' && r.body !== null && (r.body as { jobId: string }).jobId === job.id,
    );
    expect(a?.path).toBe('/primary');
    expect(b?.path).toBe('/backup');
    expect(a!.receivedAt).toBeLessThanOrEqual(b!.receivedAt);

    const won = await jobInState(t, job.id, 'succeeded');
    expect(won.result).toEqual({ from: 'backup' });
    const winner = won.attempts.find((x) => x.id === won.completedBy);
    expect(winner).toMatchObject({ n: 2, provider: 'backup', state: 'succeeded' });

    // The primary answers last: its result is discarded and the race recorded, naming both attempts.
    primaryGate.open();
    const [race] = await until('the race to be recorded', async () => {
      const e = await events(t, job.id, 'race_lost');
      return e.length ? e : undefined;
    });
    expect(race?.data).toMatchObject({
      loser: { n: 1, provider: 'primary' },
      winner: { attemptId: won.completedBy, n: 2, provider: 'backup' },
      discardedDigest: payloadDigest({ from: 'primary' }),
    });
    const { rows } = await t.onejob.pool.query(
      'SELECT n, state, result_digest FROM onejob.attempts WHERE job_id = $1 ORDER BY n',
      [job.id],
    );
    expect(rows).toEqual([
      { n: 1, state: 'lost_race', result_digest: payloadDigest({ from: 'primary' }) },
      { n: 2, state: 'succeeded', result_digest: null },
    ]);
    const after = await t.request(`/v1/jobs/${job.id}`);
    expect(((await after.json()) as { result: unknown }).result).toEqual({ from: 'backup' });
    expect(await outboxTypes(t, job.id)).toEqual([
      'onejob.job.created',
      'onejob.job.succeeded',
      'onejob.attempt.lost_race',
    ]);
  });

  it('two attempts answering at the same instant (one gate): exactly one wins', async () => {
    mode = 'together';
    sharedGate = new Gate();
    const job = await createJob(t, 'together-1', 'manual', { text: 'x' });
    await fake.waitForRequests(1, (r) => (r.body as { jobId?: string })?.jobId === job.id);
    // The fallback button on a pure job may run beside the first attempt.
    const second = await t.request(`/v1/jobs/${job.id}/attempts`, {
      method: 'POST',
      json: { provider: 'backup' },
    });
    expect(second.status).toBe(202);
    await fake.waitForRequests(2, (r) => (r.body as { jobId?: string })?.jobId === job.id);
    sharedGate.open();
    const done = await jobInState(t, job.id, 'succeeded');
    await until('both attempts to finish', async () => {
      const { rows } = await t.onejob.pool.query(
        `SELECT count(*)::int AS n FROM onejob.attempts WHERE job_id = $1 AND state IN ('succeeded', 'lost_race')`,
        [job.id],
      );
      return rows[0].n === 2;
    });
    const { rows } = await t.onejob.pool.query(
      'SELECT id, state FROM onejob.attempts WHERE job_id = $1 ORDER BY n',
      [job.id],
    );
    expect(rows.filter((r) => r.state === 'succeeded')).toEqual([
      { id: done.completedBy, state: 'succeeded' },
    ]);
    expect(rows.filter((r) => r.state === 'lost_race')).toHaveLength(1);
    expect(await events(t, job.id, 'race_lost')).toHaveLength(1);
  });

  it('ten attempts completing at once through the compare-and-swap, eight times: one winner each time', async () => {
    const providers = t.onejob.operations.get('race')!.providers;
    for (let round = 0; round < 8; round++) {
      // Created already running, so no worker claims it: the attempts below are driven by hand.
      const job = await withTransaction(t.onejob.pool, async (tx) => {
        const created = await t.onejob.jobs.create(
          { ownerId: 'owner-a', idempotencyKey: `cas-${round}`, operation: 'race', input: { round } },
          { tx },
        );
        await tx.query(`UPDATE onejob.jobs SET state = 'running' WHERE id = $1`, [created.job.id]);
        return created.job;
      });
      const ids: string[] = [];
      for (let i = 0; i < 10; i++) {
        const { attempt } = await startAttempt(t.onejob.pool, t.onejob.operations, {
          jobId: job.id,
          origin: 'manual',
          provider: providers[i % 2]!,
          leaseOwner: 'test',
          leaseMs: 60_000,
        });
        expect(await markRunning(t.onejob.pool, attempt.id, 'test', 60_000, 60_000)).toBeDefined();
        ids.push(attempt.id);
      }
      const outcomes = await Promise.all(
        ids.map((id, i) => completeAttempt(t.onejob.pool, id, { result: { i } })),
      );
      const winners = outcomes.filter((o) => o.kind === 'won');
      expect(winners).toHaveLength(1);
      expect(outcomes.filter((o) => o.kind === 'lost_race')).toHaveLength(9);
      const { rows } = await t.onejob.pool.query(
        'SELECT version, completed_by, result FROM onejob.jobs WHERE id = $1',
        [job.id],
      );
      const winnerIndex = outcomes.findIndex((o) => o.kind === 'won');
      expect(rows[0]).toEqual({ version: 2, completed_by: ids[winnerIndex], result: { i: winnerIndex } });
    }
  });
});
