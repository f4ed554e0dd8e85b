// A provider that answers 429 or 503 with Retry-After refused the call for now: the
// attempt is a definite failure (`provider_throttled`), never unknown, and uses up none of
// maxAttempts; the provider is paused for every worker until then, in the database, and
// the job and those behind it run after the pause. Exclusive operations alike.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OperationConfig } from '../../src/config/types.js';
import { classifyAnswer } from '../../src/providers/httpProvider.js';
import { retryAfterMs, throttledOutcome } from '../../src/providers/providerThrottle.js';
import { type FakePaymentServer, startFakePaymentServer } from '../helpers/fakePaymentServer.js';
import { startTestApp, type TestApp } from '../helpers/startTestApp.js';
import { configWith, createJob, jobInState, until } from './attemptTestKit.js';

describe('reading Retry-After', () => {
  const now = Date.parse('2026-12-04T10:00:00Z');

  it('takes delta-seconds and HTTP dates, and nothing else', () => {
    expect(retryAfterMs('2', now)).toBe(2000);
    expect(retryAfterMs(' 120 ', now)).toBe(120_000);
    expect(retryAfterMs('Fri, 04 Dec 2026 10:00:30 GMT', now)).toBe(30_000);
    expect(retryAfterMs('Fri, 04 Dec 2026 09:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs('2.5', now)).toBeUndefined();
    expect(retryAfterMs(null, now)).toBeUndefined();
  });

  it('429 and 503 with Retry-After are throttles; without it, or on another status, the answer keeps its meaning', () => {
    expect(throttledOutcome(429, '2', now)).toMatchObject({
      kind: 'failure',
      error: { code: 'provider_throttled', status: 429, pausedUntil: '2026-12-04T10:00:02.000Z' },
    });
    expect(throttledOutcome(503, 'Fri, 04 Dec 2026 10:01:00 GMT', now)?.kind).toBe('failure');
    expect(throttledOutcome(500, '2', now)).toBeUndefined();
    expect(classifyAnswer({ status: 429, text: '{}' })).toMatchObject({ kind: 'unknown' });
    expect(classifyAnswer({ status: 503, text: '{}', retryAfter: 'later' })).toMatchObject({
      kind: 'unknown',
    });
    expect(classifyAnswer({ status: 503, text: '{}', retryAfter: '1' })).toMatchObject({
      kind: 'failure',
      error: { code: 'provider_throttled' },
    });
  });
});

let fake: FakePaymentServer;
let t: TestApp;
/** When the provider answered its throttle, per operation. */
const throttledAt = new Map<string, number>();

beforeAll(async () => {
  // The first call of each operation is refused with Retry-After: 2; every other call succeeds.
  fake = await startFakePaymentServer({
    script: (req) => {
      const operation = String((req.body as { operation?: string }).operation);
      if (!throttledAt.has(operation)) {
        throttledAt.set(operation, Date.now());
        return { status: 429, headers: { 'retry-after': '2' }, body: { error: 'rate_limited' } };
      }
      return { status: 200, body: { ok: req.index } };
    },
  });
  // maxAttempts 1: were the throttled attempt counted, the job would fail with attempts_exhausted.
  const operation = (effect: 'exclusive' | 'pure'): OperationConfig => ({
    kind: 'http',
    providers: ['pay'],
    effect,
    maxAttempts: 1,
    attemptTimeoutMs: 10_000,
  });
  t = await startTestApp({
    config: configWith(
      { pay: { kind: 'http', url: fake.chargeUrl } },
      { charge: operation('exclusive'), quote: operation('pure') },
      { leaseMs: 5_000, pollMs: 20, concurrency: 8 },
    ),
  });
  t.onejob.attempts.startWorker();
});

afterAll(async () => {
  await t?.close();
  await fake?.close();
});

/** The end of the provider's pause recorded after `since`, once it is committed. */
const pausedUntil = (since: number) =>
  until('the pause to be recorded', async () => {
    const { rows } = await t.onejob.pool.query<{ until: Date; status: number }>(
      "SELECT until, status FROM onejob.provider_pauses WHERE provider = 'pay' AND until > $1",
      [new Date(since)],
    );
    if (rows[0]) expect(rows[0].status).toBe(429);
    return rows[0]?.until.getTime();
  });

describe.each(['charge', 'quote'])('a provider that answers 429 with Retry-After: 2 (%s)', (operation) => {
  it('is called by no worker until the pause ends; the throttled job and those behind it then succeed, none unknown', async () => {
    const first = await createJob(t, `${operation}-first`, operation, { n: 0 });
    await fake.waitForRequests(1, (r) => (r.body as { jobId?: string }).jobId === first.id);
    // Queued once the pause is recorded (a call already in flight then could not be stopped).
    const until = await pausedUntil(throttledAt.get(operation)!);
    const behind = await Promise.all(
      [1, 2, 3].map((n) => createJob(t, `${operation}-behind-${n}`, operation, { n })),
    );
    for (const job of [first, ...behind]) await jobInState(t, job.id, 'succeeded');

    expect(until - throttledAt.get(operation)!).toBeGreaterThanOrEqual(1_900);
    // Every call of this operation after the throttle arrived once the pause was over.
    const ids = new Set([first, ...behind].map((j) => j.id));
    const calls = fake.calls().filter((c) => ids.has(String((c.body as { jobId?: string }).jobId)));
    expect(calls).toHaveLength(5);
    for (const call of calls.slice(1)) expect(call.receivedAt).toBeGreaterThanOrEqual(until);

    const { rows: attempts } = await t.onejob.pool.query<{
      job_id: string;
      n: number;
      state: string;
      code: string | null;
    }>(
      `SELECT job_id, n, state, error->>'code' AS code FROM onejob.attempts WHERE job_id = ANY($1::uuid[]) ORDER BY job_id, n`,
      [[...ids]],
    );
    expect(attempts.filter((a) => a.state === 'unknown')).toEqual([]);
    expect(attempts.filter((a) => a.job_id === first.id).map((a) => [a.n, a.state, a.code])).toEqual([
      [1, 'failed', 'provider_throttled'],
      [2, 'succeeded', null],
    ]);
    expect(attempts.filter((a) => a.job_id !== first.id).map((a) => a.state)).toEqual([
      'succeeded',
      'succeeded',
      'succeeded',
    ]);
  });
});
