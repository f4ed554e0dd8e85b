// What a refused job creation costs the server: an owner past its bucket is refused before
// its body is read, and a body of very many small values is refused at a fixed count.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/defaultConfig.js';
import type { OnejobConfig } from '../../src/config/types.js';
import { MAX_JSON_VALUES } from '../../src/http/checkInputValues.js';
import { OWNER_B, postJob, startTestApp, type TestApp } from '../helpers/startTestApp.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({
    config: {
      ...structuredClone(defaultConfig),
      limits: { requestsPerSecond: 1000, requestBurst: 1000, jobsPerSecond: 0.001, jobBurst: 2 },
    } as OnejobConfig,
  });
});
afterAll(async () => t?.close());

const jobsWithKey = async (key: string) =>
  (await t.onejob.pool.query('SELECT 1 FROM onejob.jobs WHERE idempotency_key = $1', [key])).rowCount;

describe('the cost of a refused job creation', () => {
  it('an owner past its job-creation bucket gets 429 before its body is parsed or checked', async () => {
    for (const key of ['bucket-1', 'bucket-2'])
      expect((await postJob(t, key, { operation: 'charge', input: { amount: 1 } })).status).toBe(202);
    // Malformed JSON would be a 400 if the body were parsed before the bucket was taken.
    const res = await t.request('/v1/jobs', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': 'bucket-3' },
      body: '{"operation": "charge", "input": {"amount": 1,,, not json',
    });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).not.toBeNull();
    expect(((await res.json()) as { code: string }).code).toBe('rate_limited');
  });

  it(`a body of more than ${MAX_JSON_VALUES} values is a 413 payload_too_many_values and writes nothing; fewer pass`, async () => {
    const wide = { operation: 'charge', input: { amount: 1, list: new Array(150_000).fill(0) } };
    const res = await postJob(t, 'wide-1', wide, OWNER_B.token);
    expect(res.status).toBe(413);
    expect(((await res.json()) as { code: string }).code).toBe('payload_too_many_values');
    expect(await jobsWithKey('wide-1')).toBe(0);

    const fine = { operation: 'charge', input: { amount: 1, list: new Array(90_000).fill(0) } };
    const ok = await postJob(t, 'wide-2', fine, OWNER_B.token);
    expect(ok.status).toBe(202);
    await ok.text();
  });
});
