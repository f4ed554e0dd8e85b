// Bad input, generated: every route (test/fuzz/httpFuzz.ts), then malformed idempotency
// keys, bodies, headers and webhook deliveries against the real HTTP API. Every answer must be a 4xx problem document with a stable
// code (never a 5xx), and nothing may be written.
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FUZZ_SECRET, FUZZ_SECRET_ENV, fuzzConfig, runFuzz, seedFuzzContext } from '../fuzz/httpFuzz.js';
import { ADMIN_TOKEN, OWNER_A, OWNER_B, startTestApp, type TestApp } from '../helpers/startTestApp.js';

const SECRET = FUZZ_SECRET;
process.env[FUZZ_SECRET_ENV] = SECRET;
const config = fuzzConfig();

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ config });
});
afterAll(async () => t?.close());

const TABLES = [
  'onejob.jobs',
  'onejob.job_events',
  'onejob.outbox',
  'onejob.inbox_events',
  'onejob.ledger_transfers',
];

async function rowCounts(): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of TABLES) {
    const { rows } = await t.onejob.pool.query<{ t: string | null }>('SELECT to_regclass($1) AS t', [table]);
    if (rows[0]?.t === null) continue;
    counts[table] = Number((await t.onejob.pool.query(`SELECT count(*) AS n FROM ${table}`)).rows[0].n);
  }
  return counts;
}

/** Sends one request and asserts the answer is a 4xx problem document with a code. */
async function expectRefused(path: string, init: RequestInit & { token?: string | null }) {
  const res = await t.request(path, init);
  const text = await res.text();
  const context = `${init.method ?? 'GET'} ${path} -> ${res.status} ${text.slice(0, 300)}`;
  expect(res.status, context).toBeGreaterThanOrEqual(400);
  expect(res.status, context).toBeLessThan(500);
  expect(res.headers.get('content-type') ?? '', context).toContain('application/problem+json');
  const problem = JSON.parse(text) as { code?: unknown; status?: unknown };
  expect(typeof problem.code, context).toBe('string');
  expect(problem.status, context).toBe(res.status);
}

// Header values an HTTP client can send: tab, printable ASCII and obs-text (0x80-0xFF).
// Other control bytes never reach onejob: Node's HTTP parser refuses them first.
const headerChar = fc
  .oneof(fc.constant(9), fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0x80, max: 0xff }))
  .map((c) => String.fromCharCode(c));
const trimmed = (s: string) => s.replace(/^[ \t]+|[ \t]+$/g, '');
const validKey = (s: string) => /^[\x20-\x7e]{1,255}$/.test(s);
// Keys that are invalid even after HTTP trims the surrounding whitespace.
const badKey = fc
  .oneof(
    fc.string({ unit: headerChar, minLength: 0, maxLength: 40 }),
    fc.string({ unit: 'grapheme-ascii', minLength: 256, maxLength: 400 }),
  )
  .filter((k) => !validKey(trimmed(k)));

/** True when a body would be a valid charge request: the generators must never produce one. */
function isValidCharge(body: string): boolean {
  try {
    const v = JSON.parse(body) as { operation?: unknown; input?: { amount?: unknown } };
    return (
      v !== null &&
      typeof v === 'object' &&
      (v.operation === 'charge' || v.operation === 'summarize') &&
      typeof v.input === 'object' &&
      v.input !== null
    );
  } catch {
    return false;
  }
}

const badBody = fc
  .oneof(
    fc.string({ maxLength: 200 }),
    fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
    fc
      .record({ operation: fc.string({ maxLength: 20 }), input: fc.jsonValue({ maxDepth: 2 }) })
      .map((v) => JSON.stringify(v)),
    fc
      .record({
        operation: fc.constant('charge'),
        input: fc.oneof(
          fc.record({
            amount: fc.oneof(fc.integer({ max: 0 }), fc.double(), fc.string(), fc.constant(null)),
          }),
          fc.array(fc.integer()),
          fc.string(),
        ),
      })
      .map((v) => JSON.stringify(v)),
    fc.string({ maxLength: 50 }).map((s) => `{"operation":"charge","input":{"amount":1}${s}`),
  )
  .filter((b) => !isValidCharge(b));

describe('fuzzing the HTTP API with bad input', () => {
  // The short run of the suite `npm run fuzz -- --seed N --requests N` runs for longer.
  it('every route, fuzzed (seed 1, 500 requests): no 5xx, no dropped connection, no write by a refused request', async () => {
    const context = await seedFuzzContext(t.url, {
      ownerToken: OWNER_A.token,
      otherToken: OWNER_B.token,
      adminToken: ADMIN_TOKEN,
    });
    const report = await runFuzz({ url: t.url, pool: t.onejob.pool, context, seed: 1, requests: 500 });
    expect(report.failures).toEqual([]);
    expect(report).toMatchObject({ serverErrors: 0, dropped: 0, refusedThatWrote: 0 });
    expect(report.requests).toBeGreaterThan(450);
  });

  it('a malformed Idempotency-Key is refused with a 4xx problem and writes nothing', async () => {
    const before = await rowCounts();
    await fc.assert(
      fc.asyncProperty(badKey, async (key) => {
        await expectRefused('/v1/jobs', {
          method: 'POST',
          headers: { 'idempotency-key': key, 'content-type': 'application/json' },
          body: JSON.stringify({ operation: 'charge', input: { amount: 100 } }),
        });
      }),
      { numRuns: 100 },
    );
    expect(await rowCounts()).toEqual(before);
  });

  it('a malformed job body is refused with a 4xx problem and writes nothing', async () => {
    const before = await rowCounts();
    let n = 0;
    await fc.assert(
      fc.asyncProperty(badBody, async (body) => {
        await expectRefused('/v1/jobs', {
          method: 'POST',
          headers: { 'idempotency-key': `fuzz-body-${n++}`, 'content-type': 'application/json' },
          body,
        });
      }),
      { numRuns: 150 },
    );
    expect(await rowCounts()).toEqual(before);
  });

  it('bad tokens, content types and oversized headers are refused with a 4xx problem and write nothing', async () => {
    const before = await rowCounts();
    const badHeaders = fc.oneof(
      fc
        .record({
          authorization: fc.oneof(
            fc.constant(''),
            fc.string({ unit: headerChar, maxLength: 60 }).map((s) => `Bearer ${s}`),
            fc.string({ unit: headerChar, maxLength: 60 }),
          ),
        })
        .filter((h) => !/^Bearer\s+token-[ab]$/i.test(trimmed(h.authorization))),
      fc
        .record({
          'content-type': fc.oneof(
            fc.constantFrom(
              'text/plain',
              'application/xml',
              'multipart/form-data; boundary=x',
              'application/x-www-form-urlencoded',
            ),
            fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 40 }),
          ),
        })
        .filter((h) => !/^application\/(.*\+)?json/i.test(trimmed(h['content-type']))),
    );
    let n = 0;
    await fc.assert(
      fc.asyncProperty(badHeaders, async (headers) => {
        const token = 'authorization' in headers ? null : undefined;
        await expectRefused('/v1/jobs', {
          method: 'POST',
          headers: {
            'idempotency-key': `fuzz-header-${n++}`,
            'content-type': 'application/json',
            ...headers,
          },
          body: JSON.stringify({ operation: 'charge', input: { amount: 5 } }),
          ...(token === null ? { token: null } : {}),
        });
      }),
      { numRuns: 100 },
    );
    expect(await rowCounts()).toEqual(before);
  });

  it('malformed or badly signed webhook deliveries are refused with a 4xx problem and write nothing', async () => {
    const before = await rowCounts();
    const webhook = new Webhook(SECRET);
    const payload = fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
    );
    const delivery = fc.record({
      payload: payload.filter((p) => {
        // A signed body that is a valid charge input would rightly create a job.
        try {
          const v = JSON.parse(p) as { amount?: unknown };
          return !(
            v !== null &&
            typeof v === 'object' &&
            !Array.isArray(v) &&
            Number.isInteger(v.amount) &&
            (v.amount as number) >= 1
          );
        } catch {
          return true;
        }
      }),
      id: fc.option(
        fc
          .string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 40 })
          .filter((s) => trimmed(s).length > 0),
        { nil: undefined },
      ),
      signing: fc.constantFrom('valid', 'none', 'garbage', 'stale', 'wrong-secret'),
    });
    await fc.assert(
      fc.asyncProperty(delivery, async ({ payload: body, id, signing }) => {
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        const eventId = id === undefined ? undefined : trimmed(id);
        if (eventId !== undefined) headers['webhook-id'] = eventId;
        const at = signing === 'stale' ? new Date(Date.now() - 3_600_000) : new Date();
        headers['webhook-timestamp'] = String(Math.floor(at.getTime() / 1000));
        if (signing === 'valid' || signing === 'stale')
          headers['webhook-signature'] = webhook.sign(eventId ?? 'none', at, body);
        else if (signing === 'garbage')
          headers['webhook-signature'] = `v1,${Buffer.from(body).toString('base64').slice(0, 44)}`;
        else if (signing === 'wrong-secret')
          headers['webhook-signature'] = new Webhook('whsec_QUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFB').sign(
            eventId ?? 'none',
            at,
            body,
          );
        await expectRefused('/v1/inbox/payments', { method: 'POST', headers, body, token: null });
      }),
      { numRuns: 120 },
    );
    expect(await rowCounts()).toEqual(before);
  });
});
