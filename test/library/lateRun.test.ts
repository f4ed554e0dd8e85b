import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payloadDigest } from '../../src/jobs/attemptRow.js';
import { defineOperation } from '../../src/operations/defineOperation.js';
import { Gate } from '../helpers/fakePaymentServer.js';
import { startLibrary, until } from './libraryKit.js';

// Each run of these operations ignores ctx.signal and answers only when the test opens
// its gate: the late answer must still go through the compare-and-swap and lose.
const gates = new Map<string, Gate>();
const signals = new Map<string, AbortSignal>();
const gateFor = (key: string) => {
  const gate = gates.get(key) ?? new Gate();
  gates.set(key, gate);
  return gate;
};

const charge = defineOperation('charge', {
  inputSchema: { type: 'object', required: ['amount'], properties: { amount: { type: 'integer' } } },
  effect: 'exclusive',
  attemptTimeoutMs: 200,
  maxAttempts: 3,
  // Retries far in the future: the only new attempt is the one the test starts.
  retry: { baseDelayMs: 600_000, maxDelayMs: 600_000 },
  async run(ctx) {
    signals.set(`${ctx.jobId}/${ctx.attempt}`, ctx.signal);
    if (ctx.attempt === 1) await gateFor(ctx.jobId).wait();
    return { chargeId: `ch_${ctx.attempt}`, key: ctx.downstreamKey, formerKey: ctx.idempotencyKey };
  },
});

const render = defineOperation('render', {
  inputSchema: { type: 'object', properties: { scene: { type: 'string' } } },
  effect: 'pure',
  attemptTimeoutMs: 200,
  maxAttempts: 3,
  retry: { baseDelayMs: 1, maxDelayMs: 1 },
  async run(ctx) {
    signals.set(`${ctx.jobId}/${ctx.attempt}`, ctx.signal);
    if (ctx.attempt === 1) await gateFor(ctx.jobId).wait();
    return { frame: `frame_${ctx.attempt}` };
  },
});

let lib: Awaited<ReturnType<typeof startLibrary<[typeof charge, typeof render]>>>;

beforeAll(async () => {
  lib = await startLibrary([charge, render]);
  await lib.onejob.start({ roles: ['worker'] });
});
afterAll(async () => {
  for (const g of gates.values()) g.open();
  await lib?.close();
});

const auditOf = async (jobId: string, type: string) =>
  (
    await lib.onejob.pool.query<{ data: Record<string, unknown> }>(
      'SELECT data FROM onejob.job_events WHERE job_id = $1 AND type = $2 ORDER BY seq',
      [jobId, type],
    )
  ).rows;

describe('a run that ignores its abort signal', () => {
  it('answers after the timeout and cannot complete the job once its unknown attempt was abandoned', async () => {
    const { job } = await lib.onejob.jobs.create({
      ownerId: 'shop',
      idempotencyKey: 'late-1',
      operation: 'charge',
      input: { amount: 500 },
    });
    const unknown = await until('the timeout to make the job unknown', async () => {
      const j = await lib.onejob.jobs.get('shop', job.id);
      return j.state === 'unknown' ? j : undefined;
    });
    expect(unknown.attempts[0]).toMatchObject({
      n: 1,
      state: 'unknown',
      provider: 'charge',
      error: { code: 'timeout' },
    });
    // The signal fired at the timeout; run ignored it and is still waiting.
    expect(signals.get(`${job.id}/1`)?.aborted).toBe(true);
    expect(String((signals.get(`${job.id}/1`)?.reason as Error | undefined)?.message)).toMatch(
      /attemptTimeoutMs/,
    );

    const abandoned = await lib.onejob.attempts.abandon(
      'shop',
      job.id,
      1,
      'the payment desk says it never settled',
    );
    expect(abandoned.attempts[0]?.state).toBe('abandoned');
    await lib.onejob.attempts.start('shop', job.id);
    const succeeded = await lib.onejob.jobs.wait('shop', job.id, 20_000);
    expect(succeeded.state).toBe('succeeded');
    expect(succeeded.result).toEqual({ chargeId: 'ch_2', key: job.id, formerKey: job.id });
    const winner = succeeded.completedBy;

    // Attempt 1 finally answers: discarded, recorded with its digest, the job untouched.
    gateFor(job.id).open();
    const [late] = await until('the late answer to be recorded', async () => {
      const rows = await auditOf(job.id, 'late_result_discarded');
      return rows.length ? rows : undefined;
    });
    expect(late?.data.discardedDigest).toBe(
      payloadDigest({ chargeId: 'ch_1', key: job.id, formerKey: job.id }),
    );
    const final = await lib.onejob.jobs.get('shop', job.id, { operation: 'charge' });
    expect(final.result).toEqual({ chargeId: 'ch_2', key: job.id, formerKey: job.id });
    expect(final.completedBy).toBe(winner);
    expect(final.attempts.map((a) => a.state)).toEqual(['abandoned', 'succeeded']);
  });

  it('answers after another attempt won a pure job and loses the race', async () => {
    const { job } = await lib.onejob.jobs.create({
      ownerId: 'shop',
      idempotencyKey: 'late-2',
      operation: 'render',
      input: { scene: 'a' },
    });
    // Attempt 1 times out (pure: retried at once); attempt 2 answers and wins.
    const succeeded = await until('attempt 2 to win', async () => {
      const j = await lib.onejob.jobs.get('shop', job.id);
      return j.state === 'succeeded' ? j : undefined;
    });
    expect(succeeded.result).toEqual({ frame: 'frame_2' });
    expect(succeeded.attempts.find((a) => a.id === succeeded.completedBy)?.n).toBe(2);
    const first = signals.get(`${job.id}/1`);
    expect(first?.aborted).toBe(true);

    gateFor(job.id).open();
    const [race] = await until('the losing answer to be recorded', async () => {
      const rows = await auditOf(job.id, 'race_lost');
      return rows.length ? rows : undefined;
    });
    expect(race?.data).toMatchObject({
      loser: { n: 1 },
      winner: { n: 2 },
      discardedDigest: payloadDigest({ frame: 'frame_1' }),
    });
    const final = await lib.onejob.jobs.get('shop', job.id);
    expect(final.result).toEqual({ frame: 'frame_2' });
    expect(final.attempts.find((a) => a.n === 1)?.state).toBe('lost_race');
  });
});
