// The HTTP layer's half of tenant safety: one Idempotency-Key, timeouts, public routes
// declared one by one, /metrics behind its token, per-owner limits, bounded long-polls
// and list pages, and input the database cannot store refused before any SQL.
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/defaultConfig.js';
import type { OnejobConfig } from '../../src/config/types.js';
import type { Onejob } from '../../src/createOnejob.js';
import { ApiKeys } from '../../src/http/apiKeys.js';
import { buildServer } from '../../src/http/buildServer.js';
import { jobWrites } from '../helpers/countRows.js';
import { OWNER_A, OWNER_B, postJob, startTestApp, type TestApp } from '../helpers/startTestApp.js';
import { until } from '../helpers/until.js';

const config = {
  ...structuredClone(defaultConfig),
  http: { requestTimeoutMs: 1000, headersTimeoutMs: 1000, maxWaitsPerOwner: 1, maxListBytes: 65_536 },
  limits: { requestsPerSecond: 1000, requestBurst: 5000, jobsPerSecond: 0.001, jobBurst: 40 },
} as OnejobConfig;

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ config });
});
afterAll(async () => t?.close());

const rowCounts = () => jobWrites(t.onejob.pool);

/** A raw HTTP request whose headers may repeat (fetch would join them into one). */
function rawPost(path: string, headers: Record<string, string | string[]>, body: string) {
  const url = new URL(t.url + path);
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, path, method: 'POST', headers }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('the HTTP boundary', () => {
  it('two Idempotency-Key headers are a 400, never joined into one key, and write nothing', async () => {
    const before = await rowCounts();
    const res = await rawPost(
      '/v1/jobs',
      {
        authorization: `Bearer ${OWNER_A.token}`,
        'content-type': 'application/json',
        'idempotency-key': ['k1', 'k2'],
      },
      JSON.stringify({ operation: 'charge', input: { amount: 1 } }),
    );
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body).code).toBe('idempotency_key_invalid');
    expect(await rowCounts()).toEqual(before);
  });

  it('a body trickled a byte at a time is answered 408 and its socket closed once requestTimeoutMs passes', async () => {
    const url = new URL(t.url);
    const socket = connect(Number(url.port), url.hostname);
    let answer = '';
    socket.on('data', (c) => (answer += c));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.on('error', () => undefined);
    const started = Date.now();
    socket.write(
      'POST /v1/inbox/nowhere HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n',
    );
    const trickle = setInterval(() => socket.writable && socket.write('{'), 100);
    await closed;
    clearInterval(trickle);
    // 1 s timeout, checked every 250 ms; without any timeout the socket stays open for ever.
    expect(Date.now() - started).toBeLessThan(5000);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toContain('"code":"request_timeout"');
  });

  it('routes are public only when declared so: a new route under a public path needs a token', async () => {
    const app = await buildServer(t.onejob, { apiKeys: new ApiKeys([[OWNER_A.token, OWNER_A.owner]]) });
    app.get('/v1/inbox/payments/history', async () => ({ secret: true }));
    app.get('/metricsx', async () => ({ secret: true }));
    app.get('/healthz/details', async () => ({ secret: true }));
    for (const url of ['/v1/inbox/payments/history', '/metricsx', '/healthz/details']) {
      const res = await app.inject({ url });
      expect(res.statusCode, url).toBe(401);
    }
    expect((await app.inject({ url: '/healthz' })).statusCode).toBe(200);
    expect((await app.inject({ url: '/openapi.json' })).statusCode).toBe(200);
    await app.close();
  });

  it('/metrics needs ONEJOB_METRICS_TOKEN when it is set, and answers only loopback clients when it is not', async () => {
    const keys = new ApiKeys([[OWNER_A.token, OWNER_A.owner]]);
    const withToken = await buildServer(t.onejob, { apiKeys: keys, metricsToken: 'scrape-secret-123456' });
    expect((await withToken.inject({ url: '/metrics' })).statusCode).toBe(403);
    const tenant = await withToken.inject({
      url: '/metrics',
      headers: { authorization: `Bearer ${OWNER_A.token}` },
    });
    expect(tenant.statusCode).toBe(403);
    expect(tenant.json().code).toBe('metrics_token_required');
    const scraper = await withToken.inject({
      url: '/metrics',
      headers: { authorization: 'Bearer scrape-secret-123456' },
    });
    expect(scraper.statusCode).toBe(200);
    expect(scraper.body).toContain('onejob_');
    await withToken.close();

    const without = await buildServer(t.onejob, { apiKeys: keys });
    expect((await without.inject({ url: '/metrics' })).statusCode).toBe(200);
    const remote = await without.inject({ url: '/metrics', remoteAddress: '10.1.2.3' });
    expect(remote.statusCode).toBe(403);
    expect(
      (await without.inject({ method: 'HEAD', url: '/metrics', remoteAddress: '10.1.2.3' })).statusCode,
    ).toBe(403);
    expect((await without.inject({ method: 'HEAD', url: '/v1/jobs' })).statusCode).toBe(401);
    await without.close();
  });

  it("an owner past its job-creation bucket gets 429 with Retry-After and nothing is written; another owner's bucket is its own", async () => {
    // jobBurst 40 at 0.001/s: this file's other creations stay well under it.
    let refused = false;
    for (let i = 0; i < 60 && !refused; i++) {
      const before = await rowCounts();
      const res = await postJob(t, `burst-${i}`, { operation: 'charge', input: { amount: 1 } });
      if (res.status === 202) continue;
      expect(res.status).toBe(429);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(((await res.json()) as { code: string }).code).toBe('rate_limited');
      expect(await rowCounts()).toEqual(before);
      refused = true;
    }
    expect(refused).toBe(true);
    const other = await postJob(
      t,
      'burst-other',
      { operation: 'charge', input: { amount: 1 } },
      OWNER_B.token,
    );
    expect(other.status).toBe(202);
  });

  it("an owner past its request bucket gets 429 with Retry-After before any route runs; another owner's requests go on", async () => {
    const limited = {
      ...t.onejob,
      config: { ...t.onejob.config, limits: { requestsPerSecond: 0.001, requestBurst: 3 } },
    } as Onejob;
    const app = await buildServer(limited, {
      apiKeys: new ApiKeys([
        [OWNER_A.token, OWNER_A.owner],
        [OWNER_B.token, OWNER_B.owner],
      ]),
    });
    const get = (token: string) =>
      app.inject({ url: '/v1/jobs', headers: { authorization: `Bearer ${token}` } });
    for (let i = 0; i < 3; i++) expect((await get(OWNER_A.token)).statusCode).toBe(200);
    const refused = await get(OWNER_A.token);
    expect(refused.statusCode).toBe(429);
    expect(refused.json().code).toBe('rate_limited');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect((await get(OWNER_B.token)).statusCode).toBe(200);
    await app.close();
  });

  it('an owner holding maxWaitsPerOwner long-polls gets 429 for one more; other owners and plain reads are not held up', async () => {
    const created = await postJob(t, 'wait-1', { operation: 'charge', input: { amount: 1 } }, OWNER_B.token);
    const job = (await created.json()) as { id: string };
    // No worker runs in this file, so the job stays queued and the first wait holds its slot.
    const first = t.request(`/v1/jobs/${job.id}?waitMs=3000`, { token: OWNER_B.token });
    const refused = await until('the second long-poll is refused', async () => {
      const res = await t.request(`/v1/jobs/${job.id}?waitMs=1`, { token: OWNER_B.token });
      return res.status === 429 ? res : false;
    });
    expect(refused.headers.get('retry-after')).toBe('1');
    expect((await t.request(`/v1/jobs/${job.id}`, { token: OWNER_B.token })).status).toBe(200);
    expect((await first).status).toBe(200);
    expect((await t.request(`/v1/jobs/${job.id}?waitMs=1`, { token: OWNER_B.token })).status).toBe(200);
  });

  it('a page of jobs stops at maxListBytes, and following nextCursor still lists every job once', async () => {
    const pad = 'x'.repeat(30_000);
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await postJob(
        t,
        `big-${i}`,
        { operation: 'charge', input: { amount: 1, pad } },
        OWNER_B.token,
      );
      ids.push(((await res.json()) as { id: string }).id);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const q: string = `/v1/jobs?operation=charge&limit=200${cursor ? `&cursor=${cursor}` : ''}`;
      const res = await t.request(q, { token: OWNER_B.token });
      const text = await res.text();
      expect(Buffer.byteLength(text)).toBeLessThan(65_536 + 40_000);
      const page = JSON.parse(text) as { items: { id: string }[]; nextCursor: string | null };
      seen.push(...page.items.map((j) => j.id));
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBeGreaterThan(1);
    for (const id of ids) expect(seen.filter((s) => s === id)).toHaveLength(1);
  });
});

describe('input the database cannot store is a 400 before any SQL', () => {
  const bodies: [string, string, string][] = [
    ['a NUL character', '{"operation":"charge","input":{"amount":1,"note":"a\\u0000b"}}', 'value_invalid'],
    ['a NUL in a key', '{"operation":"charge","input":{"amount":1,"a\\u0000":1}}', 'value_invalid'],
    [
      'a lone high surrogate',
      '{"operation":"charge","input":{"amount":1,"note":"\\ud800"}}',
      'value_invalid',
    ],
    [
      'a lone low surrogate',
      '{"operation":"charge","input":{"amount":1,"note":"x\\udc00"}}',
      'value_invalid',
    ],
    ['1e400', '{"operation":"charge","input":{"amount":1,"big":1e400}}', 'value_invalid'],
    [
      'nesting 5000 deep',
      `{"operation":"charge","input":{"amount":1,"deep":${'['.repeat(5000)}${']'.repeat(5000)}}}`,
      'request_invalid',
    ],
  ];
  it.each(bodies)('a job body with %s is refused and writes nothing', async (_name, body, code) => {
    const before = await rowCounts();
    const res = await t.request('/v1/jobs', {
      method: 'POST',
      headers: { 'idempotency-key': `bad-${_name}`, 'content-type': 'application/json' },
      body,
      // Owner A emptied its job bucket above, and the bucket is taken before the body is read.
      token: OWNER_B.token,
    });
    expect(res.status).toBe(400);
    const problem = (await res.json()) as { code: string; detail: string };
    expect(problem.code).toBe(code);
    // Decided by the check before any SQL, not by the database's refusal (the backstop).
    expect(problem.detail).toMatch(/^The body (holds|is nested)/);
    expect(await rowCounts()).toEqual(before);
  });

  it('a paired surrogate (an emoji) is kept', async () => {
    const res = await postJob(
      t,
      'emoji',
      { operation: 'charge', input: { amount: 1, note: '😀' } },
      OWNER_B.token,
    );
    expect(res.status).toBe(202);
    expect(((await res.json()) as { input: { note: string } }).input.note).toBe('😀');
  });

  it.each([
    '/v1/jobs?limit=1e400',
    '/v1/jobs?limit=-1e400',
    '/v1/jobs?limit=99999999999999999999',
    '/v1/jobs?operation=a%00b',
    '/v1/jobs?idempotencyKey=%00',
    '/v1/jobs/00000000-0000-7000-8000-000000000000?waitMs=1e400',
    '/v1/ledger/accounts/a%00b',
    '/v1/ledger/accounts/wallet:x/entries?asOf=2025-02-30T10:00:00Z',
    '/v1/ledger/accounts/wallet:x?asOf=9999-99-99',
  ])('GET %s is a 400 problem, not a 500', async (path) => {
    const res = await t.request(path);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.status).toBe(400);
  });

  it.each(['99999999999999999999', '2147483648', '1e400'])(
    'abandoning attempt number %s is a 400 decided before any SQL',
    async (n) => {
      const res = await t.request(`/v1/jobs/00000000-0000-7000-8000-000000000000/attempts/${n}/abandon`, {
        method: 'POST',
        json: { reason: 'x' },
      });
      expect(res.status).toBe(400);
      expect(['request_invalid', 'value_invalid']).toContain(((await res.json()) as { code: string }).code);
    },
  );
});
