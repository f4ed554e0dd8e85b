// Dashboard job streams are long-polls by another name: each holds one of its owner's
// slots, sleeps until the job's wake-up, and reads the whole job only when it changed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/defaultConfig.js';
import type { OnejobConfig } from '../../src/config/types.js';
import { jobEvents } from '../helpers/jobEventStream.js';
import { OWNER_A, OWNER_B, postJob, startTestApp, type TestApp } from '../helpers/startTestApp.js';
import { until } from '../helpers/until.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({
    config: { ...structuredClone(defaultConfig), http: { maxWaitsPerOwner: 2 } } as OnejobConfig,
  });
});
afterAll(async () => t?.close());

async function newJob(key: string, token = OWNER_A.token): Promise<string> {
  const res = await postJob(t, key, { operation: 'charge', input: { amount: 1 } }, token);
  return ((await res.json()) as { id: string }).id;
}

/** Opens a stream and waits for its first event, so the server holds its slot. */
async function openStream(id: string, token = OWNER_A.token) {
  const controller = new AbortController();
  const res = await t.request(`/v1/dashboard/jobs/${id}/stream`, { token, signal: controller.signal });
  expect(res.status).toBe(200);
  const nextJob = jobEvents(res);
  expect(await nextJob()).not.toBeNull();
  return { nextJob, close: () => controller.abort() };
}

describe('dashboard job streams', () => {
  it("an owner's job streams and long-polls share maxWaitsPerOwner: one more is a 429 with Retry-After, other owners go on", async () => {
    const id = await newJob('slots-1');
    const first = await openStream(id);
    const second = await openStream(id);
    const third = await t.request(`/v1/dashboard/jobs/${id}/stream`);
    expect(third.status).toBe(429);
    expect(third.headers.get('retry-after')).not.toBeNull();
    expect(((await third.json()) as { code: string }).code).toBe('rate_limited');
    const poll = await t.request(`/v1/jobs/${id}?waitMs=10`);
    expect(poll.status).toBe(429);
    await poll.text();

    const other = await openStream(await newJob('slots-b', OWNER_B.token), OWNER_B.token);
    other.close();

    // A closed stream gives its slot back.
    first.close();
    const again = await until('a slot freed by the closed stream', async () => {
      const res = await t.request(`/v1/jobs/${id}?waitMs=1`);
      await res.text();
      return res.status === 200;
    });
    expect(again).toBe(true);
    second.close();
  });

  it('a stream re-reads only the change mark on each wake-up and reads the whole job only when it changed', async () => {
    const id = await newJob('marks-1');
    const texts: string[] = [];
    const pool = t.onejob.pool;
    const query = pool.query.bind(pool) as (...a: unknown[]) => Promise<unknown>;
    (pool as unknown as { query: unknown }).query = async (...args: unknown[]) => {
      const result = await query(...args);
      const [text, values] = args as [string | { text: string }, unknown[] | undefined];
      if (Array.isArray(values) && values.includes(id))
        texts.push(typeof text === 'string' ? text : text.text);
      return result;
    };
    try {
      const fullReads = () => texts.filter((s) => /\binput\b/.test(s)).length;
      const looks = () => texts.length;
      const stream = await openStream(id);
      const readsAtStart = fullReads();
      for (let i = 0; i < 5; i++) {
        const before = looks();
        t.onejob.wakeups.jobSettled(id);
        await until('the stream to look at its job', async () => looks() > before);
      }
      expect(fullReads()).toBe(readsAtStart);
      await t.onejob.attempts.cancel(OWNER_A.owner, id);
      expect((await stream.nextJob())?.state).toBe('cancelled');
      expect(await stream.nextJob()).toBeNull();
    } finally {
      (pool as unknown as { query: unknown }).query = query;
    }
  });

  it('HEAD on a job stream answers its headers at once and holds no slot; another owner gets 404', async () => {
    const id = await newJob('head-1');
    for (let i = 0; i < 3; i++) {
      const head = await t.request(`/v1/dashboard/jobs/${id}/stream`, { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(head.headers.get('content-type')).toMatch(/text\/event-stream/);
    }
    const other = await t.request(`/v1/dashboard/jobs/${id}/stream`, {
      method: 'HEAD',
      token: OWNER_B.token,
    });
    expect(other.status).toBe(404);
  });
});
