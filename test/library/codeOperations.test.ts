import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isOnejobError } from '../../src/errors/OnejobError.js';
import { DefiniteFailure } from '../../src/operations/DefiniteFailure.js';
import { defineOperation } from '../../src/operations/defineOperation.js';
import { Gate } from '../helpers/fakePaymentServer.js';
import { startLibrary, until } from './libraryKit.js';

const seen: { jobId: string; attempt: number; key: string; provider: string }[] = [];
const cancelGate = new Gate();
let cancelledReason: string | undefined;

const charge = defineOperation('charge', {
  inputSchema: {
    type: 'object',
    required: ['amount', 'mode'],
    additionalProperties: false,
    properties: {
      amount: { type: 'integer', minimum: 1 },
      mode: { enum: ['ok', 'declined-once', 'declined-always', 'declined-final', 'crash', 'hang'] },
    },
  },
  attemptTimeoutMs: 5_000,
  maxAttempts: 3,
  retry: { baseDelayMs: 1, maxDelayMs: 1 },
  async run(ctx) {
    seen.push({ jobId: ctx.jobId, attempt: ctx.attempt, key: ctx.idempotencyKey, provider: ctx.provider });
    if (ctx.input.mode === 'declined-once' && ctx.attempt === 1)
      throw new DefiniteFailure('card declined', {
        code: 'card_declined',
        details: { declineCode: 'insufficient_funds' },
      });
    if (ctx.input.mode === 'declined-always')
      throw new DefiniteFailure('card declined', { code: 'card_declined' });
    if (ctx.input.mode === 'declined-final')
      throw new DefiniteFailure('card declined', { code: 'card_declined', retryable: false });
    if (ctx.input.mode === 'crash') throw new Error('socket hang up after the request was sent');
    if (ctx.input.mode === 'hang') {
      await new Promise<void>((resolve) =>
        ctx.signal.addEventListener('abort', () => resolve(), { once: true }),
      );
      cancelledReason = (ctx.signal.reason as Error).message;
      cancelGate.open();
      throw ctx.signal.reason;
    }
    return { chargeId: `ch_${ctx.jobId.slice(-6)}`, amount: ctx.input.amount };
  },
});

let lib: Awaited<ReturnType<typeof startLibrary<[typeof charge]>>>;

beforeAll(async () => {
  lib = await startLibrary([charge]);
  await lib.onejob.start({ roles: ['worker'] });
});
afterAll(async () => {
  await lib?.close();
});

const settled = (id: string) => lib.onejob.jobs.wait('shop', id, 20_000, { operation: 'charge' });

describe('operations written as code', () => {
  it('what run returns becomes the job result, and every attempt gets the job id as its idempotency key', async () => {
    const { job } = await lib.onejob.jobs.create({
      ownerId: 'shop',
      idempotencyKey: 'ok-1',
      operation: 'charge',
      input: { amount: 700, mode: 'ok' },
    });
    const done = await settled(job.id);
    expect(done.state).toBe('succeeded');
    expect(done.result).toEqual({ chargeId: `ch_${job.id.slice(-6)}`, amount: 700 });
    expect(seen.filter((s) => s.jobId === job.id)).toEqual([
      { jobId: job.id, attempt: 1, key: job.id, provider: 'charge' },
    ]);
  });

  it('a thrown DefiniteFailure fails the attempt and the engine retries under the same job and key', async () => {
    const { job } = await lib.onejob.jobs.create({
      ownerId: 'shop',
      idempotencyKey: 'declined-1',
      operation: 'charge',
      input: { amount: 900, mode: 'declined-once' },
    });
    const done = await settled(job.id);
    expect(done.state).toBe('succeeded');
    expect(done.attempts.map((a) => a.state)).toEqual(['failed', 'succeeded']);
    expect(done.attempts[0]?.error).toMatchObject({
      code: 'card_declined',
      declineCode: 'insufficient_funds',
      message: 'card declined',
    });
    expect(seen.filter((s) => s.jobId === job.id).map((s) => s.key)).toEqual([job.id, job.id]);
  });

  it('a DefiniteFailure with retryable: false fails the job after exactly one attempt', async () => {
    const { job } = await lib.onejob.jobs.create({
      ownerId: 'shop',
      idempotencyKey: 'declined-final-1',
      operation: 'charge',
      input: { amount: 900, mode: 'declined-final' },
    });
    const done = await settled(job.id);
    expect(done.state).toBe('failed');
    expect(done.attempts.map((a) => a.state)).toEqual(['failed']);
    expect(seen.filter((s) => s.jobId === job.id)).toHaveLength(1);
    expect(done.error).toMatchObject({
      code: 'failed_permanently',
      finalBy: 'retryable_false',
      lastError: { code: 'card_declined', finalBy: 'retryable_false' },
    });
  });

  it('a DefiniteFailure without retryable: false is retried up to maxAttempts', async () => {
    const { job } = await lib.onejob.jobs.create({
      ownerId: 'shop',
      idempotencyKey: 'declined-always-1',
      operation: 'charge',
      input: { amount: 900, mode: 'declined-always' },
    });
    const done = await settled(job.id);
    expect(done.state).toBe('failed');
    expect(done.attempts.map((a) => a.state)).toEqual(['failed', 'failed', 'failed']);
    expect(done.error).toMatchObject({ code: 'attempts_exhausted', finalBy: 'max_attempts' });
  });

  it('any other error is an unknown outcome for an exclusive operation, and blocks a new attempt', async () => {
    const { job } = await lib.onejob.jobs.create({
      ownerId: 'shop',
      idempotencyKey: 'crash-1',
      operation: 'charge',
      input: { amount: 1, mode: 'crash' },
    });
    const unknown = await settled(job.id);
    expect(unknown.state).toBe('unknown');
    expect(unknown.attempts).toHaveLength(1);
    expect(unknown.attempts[0]).toMatchObject({ state: 'unknown', error: { code: 'run_threw' } });
    const refused = await lib.onejob.attempts.start('shop', job.id).catch((e: unknown) => e);
    expect(isOnejobError(refused, 'attempt_outcome_unknown')).toBe(true);
  });

  it('cancelling the job fires the signal of its running attempt', async () => {
    const { job } = await lib.onejob.jobs.create({
      ownerId: 'shop',
      idempotencyKey: 'hang-1',
      operation: 'charge',
      input: { amount: 1, mode: 'hang' },
    });
    await until('the attempt to run', async () => seen.some((s) => s.jobId === job.id));
    const cancelled = await lib.onejob.attempts.cancel('shop', job.id);
    expect(cancelled.state).toBe('cancelled');
    await cancelGate.wait();
    expect(cancelledReason).toBe('the job was cancelled');
  });

  it('input that fails the schema is refused before anything is written', async () => {
    const refused = await lib.onejob.jobs
      .create({
        ownerId: 'shop',
        idempotencyKey: 'bad-1',
        operation: 'charge',
        input: { amount: 0, mode: 'ok' },
      })
      .catch((e: unknown) => e);
    expect(isOnejobError(refused, 'input_invalid')).toBe(true);
    const { rows } = await lib.onejob.pool.query("SELECT 1 FROM onejob.jobs WHERE idempotency_key = 'bad-1'");
    expect(rows).toHaveLength(0);
  });

  it('a typed read of a job of another operation is not found', async () => {
    const { job } = await lib.onejob.jobs.create({
      ownerId: 'shop',
      idempotencyKey: 'ok-2',
      operation: 'charge',
      input: { amount: 2, mode: 'ok' },
    });
    const wrong = await lib.onejob.jobs.get('shop', job.id, { operation: 'refund' }).catch((e: unknown) => e);
    expect(isOnejobError(wrong, 'job_not_found')).toBe(true);
  });
});
