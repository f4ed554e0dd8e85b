// A seeded fuzz of the whole HTTP API against the real server and a real database: every
// route, with generated bodies, query strings, path parameters, headers, content types and
// methods. Used by test/chaos/fuzzHttp.test.ts (a short run in `npm test`) and by
// `npm run fuzz -- --seed N --requests N` (test/fuzz/runFuzz.ts) for long runs.
//
// What every run checks: no answer is 500 or more, no connection is dropped, and a
// request answered 4xx writes nothing (the row counts of every onejob table are compared
// around each one). Requests run one at a time so each change of a count is attributed
// to exactly one request; nothing else writes (no worker or relay runs).
//
// Tenant-safety shapes ride along: list pages over big jobs, dashboard job streams (and a
// burst of many at once before the sequential run), bodies of very many small values, and
// inbox bodies of raw bytes that are not UTF-8, signed over those bytes.
import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import type pg from 'pg';
import { defaultConfig } from '../../src/config/defaultConfig.js';
import type { OnejobConfig } from '../../src/config/types.js';

export const FUZZ_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
export const FUZZ_SECRET_ENV = 'FUZZ_WEBHOOK_SECRET';

/** The server's config: the default operations plus one signed inbox source. */
export function fuzzConfig(): OnejobConfig {
  return {
    ...structuredClone(defaultConfig),
    inbox: {
      sources: {
        payments: {
          scheme: 'standard-webhooks',
          secretEnv: FUZZ_SECRET_ENV,
          eventId: 'header:webhook-id',
          operation: 'charge',
          ownerId: 'owner-a',
        },
      },
    },
    // The buckets would turn most of a long run into 429s and hide the routes behind them;
    // test/http/tenantSafetyHttp.test.ts covers them.
    limits: { enabled: false },
  } as OnejobConfig;
}

/** Tokens the server accepts (startTestApp's), and the ids of rows seeded before the run. */
export interface FuzzContext {
  ownerToken: string;
  otherToken: string;
  adminToken: string;
  jobId: string;
  /** A cancelled job: its stream sends it once and ends. */
  finishedJobId: string;
  transferId: string;
  account: string;
}

export interface FuzzRequest {
  /** The route the request was generated for, as `METHOD /path/:param`. */
  route: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  /** Text, or raw bytes (inbox bodies that are not UTF-8). */
  body?: string | Uint8Array;
}

export interface FuzzReport {
  seed: number;
  requests: number;
  byStatus: Record<string, number>;
  /** Answers by the route each request was generated for, then by status. */
  byRoute: Record<string, Record<string, number>>;
  serverErrors: number;
  dropped: number;
  refusedThatWrote: number;
  /** The burst of concurrent dashboard streams on one live job: answers by status. */
  streams: Record<string, number>;
  /** The first few offending requests, for the failure message. */
  failures: string[];
}

// Strings chosen to break things: NUL, lone surrogates, huge and odd numbers, impossible
// dates, path tricks, reserved namespaces and very long text.
const nasty = fc.constantFrom(
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udc00',
  '😀',
  '1e400',
  '-1e400',
  '99999999999999999999',
  '2147483648',
  '9007199254740993',
  '-1',
  '0',
  'NaN',
  'true',
  'null',
  '2025-02-30T10:00:00Z',
  '9999-12-31T23:59:59Z',
  '0000-00-00',
  '../..',
  '%',
  'inbox:payments:evt_1',
  'usage:USD_MICROS',
  'provider:sim-pay:USD',
  'attempt-cost:x',
  'k'.repeat(300),
  'é'.repeat(70),
);
const text = fc.oneof(nasty, fc.string({ maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 20 }));

/** A JSON value, possibly deep or holding nasty strings; `1e400` stands for itself in the text. */
const value: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 3, arbitrary: text },
  {
    weight: 2,
    arbitrary: fc.oneof(
      fc.integer(),
      fc.double(),
      fc.bigInt().map((b) => `§${b}§`),
    ),
  },
  { weight: 1, arbitrary: fc.constant('§1e400§') },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 60, max: 5000 }).map((d) => `§${'['.repeat(d)}${']'.repeat(d)}§`),
  },
);

/** Serialises a generated value; `§raw§` strings become raw JSON text. */
const serialise = (v: unknown) => JSON.stringify(v).replace(/"§([^§"]*)§"/g, '$1');

/** An object with the route's own field names (so validation goes past the first field) and odd values. */
const bodyWith = (fields: readonly string[]) =>
  fc
    .dictionary(fc.oneof(fc.constantFrom(...fields), fc.string({ maxLength: 8 })), value, { maxKeys: 6 })
    .map(serialise);

const rawBody = fc.oneof(
  fc.string({ maxLength: 100 }),
  fc.constantFrom(
    '',
    '{',
    '[',
    'null',
    '"x"',
    '{"a":1}{',
    '{"__proto__":{"x":1}}',
    '{"constructor":{"prototype":{}}}',
  ),
  fc.integer({ min: 100, max: 20_000 }).map((d) => `${'{"a":'.repeat(d)}1${'}'.repeat(d)}`),
  // Wide and flat: up to 200,000 small values in under 1 MiB (refused past 100,000).
  fc
    .integer({ min: 50_000, max: 200_000 })
    .map((n) => `{"operation":"charge","input":{"amount":1,"list":[${'0,'.repeat(n - 1)}0]}}`),
  // Just over the 1 MiB body limit: refused with 413 without dropping the connection.
  fc.integer({ min: 1, max: 4096 }).map((n) => `{"input":{"pad":"${'x'.repeat(1024 * 1024 + n)}"}}`),
);

/** Percent-encodes text byte by byte (encodeURIComponent throws on a lone surrogate). */
const encode = (s: string) =>
  [...Buffer.from(s, 'utf8')]
    .map((b) =>
      /[A-Za-z0-9._~-]/.test(String.fromCharCode(b))
        ? String.fromCharCode(b)
        : `%${b.toString(16).padStart(2, '0').toUpperCase()}`,
    )
    .join('');

/** A path segment: a seeded id, a fresh uuid, odd text (encoded) or raw percent junk. */
const segment = (seeded: string) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constant(seeded) },
    { weight: 2, arbitrary: fc.uuid().map(String) },
    { weight: 3, arbitrary: text.map((s) => encode(s || 'x')) },
    { weight: 1, arbitrary: fc.constantFrom('%00', '%ED%A0%80', '%FF', '%E0%80', '.', '%2F', '1e400') },
  );

const queryValue = fc.oneof(
  text.map(encode),
  fc.constantFrom('%00', '%ED%A0%80', '%FF', '1', '50', '1e400', '-1e400', '', 'a&b', '0x10', '1.5'),
);
const query = (keys: readonly string[]) =>
  fc
    .array(fc.tuple(fc.oneof(fc.constantFrom(...keys, 'limit'), fc.string({ maxLength: 6 })), queryValue), {
      maxLength: 4,
    })
    .map((pairs) => (pairs.length ? `?${pairs.map(([k, v]) => `${encode(k)}=${v}`).join('&')}` : ''));

/** A valid body of each route, by its body's field names; the fuzz changes one field of it. */
const VALID_BODIES: Record<string, () => Record<string, unknown>> = {
  'operation,input': () => ({ operation: 'charge', input: { amount: 1, note: 'n' } }),
  provider: () => ({ provider: 'sim-pay' }),
  reason: () => ({ reason: 'operator' }),
  'id,debitAccount,creditAccount,amount,currency,reference,effectiveAt': () => ({
    id: 'fuzz-t',
    debitAccount: 'wallet:fuzz',
    creditAccount: 'revenue:fuzz',
    amount: 3,
    currency: 'USD',
    reference: 'r',
    effectiveAt: '2025-01-01T00:00:00Z',
  }),
  'id,reason,effectiveAt': () => ({ id: 'fuzz-r', reason: 'refund', effectiveAt: '2025-01-02T00:00:00Z' }),
  publisher: () => ({ publisher: 'log' }),
  operation: () => ({ operation: 'summarize' }),
  amount: () => ({ amount: 7, currency: 'USD' }),
};

/** The valid body with one field (of the body, or of a job's input) set to a generated value. */
const nearlyValid = (valid: () => Record<string, unknown>) =>
  fc
    .tuple(fc.uuid(), fc.string({ maxLength: 12 }), value, fc.boolean(), fc.nat(8))
    .map(([id, key, v, intoInput, pick]) => {
      const body = valid();
      // A fresh id each time, so a valid change is a new transfer rather than a conflict.
      if (typeof body.id === 'string') body.id = `${body.id}-${id}`;
      const target =
        intoInput && typeof body.input === 'object' ? (body.input as Record<string, unknown>) : body;
      const keys = Object.keys(target);
      // Mostly one of the valid fields; now and then a field the schema does not know.
      target[pick < 8 ? keys[pick % keys.length]! : key] = v;
      return serialise(body);
    });

interface RouteSpec {
  name: string;
  method: string;
  path: (c: FuzzContext) => fc.Arbitrary<string>;
  query?: readonly string[];
  body?: readonly string[];
}

const fixed = (p: string) => () => fc.constant(p);
const ROUTES: RouteSpec[] = [
  { name: 'GET /healthz', method: 'GET', path: fixed('/healthz') },
  { name: 'GET /readyz', method: 'GET', path: fixed('/readyz') },
  { name: 'GET /metrics', method: 'GET', path: fixed('/metrics') },
  { name: 'GET /openapi.json', method: 'GET', path: fixed('/openapi.json') },
  { name: 'GET /', method: 'GET', path: fixed('/') },
  { name: 'GET /ui/:param', method: 'GET', path: () => segment('app.js').map((s) => `/ui/${s}`) },
  { name: 'POST /v1/jobs', method: 'POST', path: fixed('/v1/jobs'), body: ['operation', 'input'] },
  {
    name: 'GET /v1/jobs',
    method: 'GET',
    path: fixed('/v1/jobs'),
    query: ['state', 'limit', 'cursor', 'idempotencyKey', 'operation'],
  },
  {
    name: 'GET /v1/jobs/:param',
    method: 'GET',
    path: (c) => segment(c.jobId).map((s) => `/v1/jobs/${s}`),
    query: ['waitMs'],
  },
  {
    name: 'POST /v1/jobs/:param/attempts',
    method: 'POST',
    path: (c) => segment(c.jobId).map((s) => `/v1/jobs/${s}/attempts`),
    body: ['provider'],
  },
  {
    name: 'POST /v1/jobs/:param/attempts/:param/abandon',
    method: 'POST',
    path: (c) =>
      fc.tuple(segment(c.jobId), segment('1')).map(([j, n]) => `/v1/jobs/${j}/attempts/${n}/abandon`),
    body: ['reason'],
  },
  {
    name: 'POST /v1/jobs/:param/cancel',
    method: 'POST',
    path: (c) => segment(c.jobId).map((s) => `/v1/jobs/${s}/cancel`),
    body: ['reason'],
  },
  {
    name: 'GET /v1/jobs/:param/deliveries',
    method: 'GET',
    path: (c) => segment(c.jobId).map((s) => `/v1/jobs/${s}/deliveries`),
  },
  {
    name: 'GET /v1/jobs/:param/events',
    method: 'GET',
    path: (c) => segment(c.jobId).map((s) => `/v1/jobs/${s}/events`),
  },
  {
    name: 'GET /v1/inbox-events',
    method: 'GET',
    path: fixed('/v1/inbox-events'),
    query: ['source', 'limit'],
  },
  {
    name: 'POST /v1/inbox/:param',
    method: 'POST',
    path: () => segment('payments').map((s) => `/v1/inbox/${s}`),
    body: ['amount'],
  },
  {
    name: 'GET /v1/ledger/accounts/:param',
    method: 'GET',
    path: (c) => segment(c.account).map((s) => `/v1/ledger/accounts/${s}`),
    query: ['asOf'],
  },
  {
    name: 'GET /v1/ledger/accounts/:param/entries',
    method: 'GET',
    path: (c) => segment(c.account).map((s) => `/v1/ledger/accounts/${s}/entries`),
    query: ['asOf', 'limit', 'cursor'],
  },
  {
    name: 'POST /v1/ledger/transfers',
    method: 'POST',
    path: fixed('/v1/ledger/transfers'),
    body: ['id', 'debitAccount', 'creditAccount', 'amount', 'currency', 'reference', 'effectiveAt'],
  },
  {
    name: 'GET /v1/ledger/transfers/:param',
    method: 'GET',
    path: (c) => segment(c.transferId).map((s) => `/v1/ledger/transfers/${s}`),
  },
  {
    name: 'POST /v1/ledger/transfers/:param/reverse',
    method: 'POST',
    path: (c) => segment(c.transferId).map((s) => `/v1/ledger/transfers/${s}/reverse`),
    body: ['id', 'reason', 'effectiveAt'],
  },
  { name: 'GET /v1/outbox/backlog', method: 'GET', path: fixed('/v1/outbox/backlog') },
  {
    name: 'GET /v1/outbox/dead-letters',
    method: 'GET',
    path: fixed('/v1/outbox/dead-letters'),
    query: ['publisher', 'limit', 'cursor'],
  },
  {
    name: 'POST /v1/outbox/dead-letters/:param/replay',
    method: 'POST',
    path: () => segment('1').map((s) => `/v1/outbox/dead-letters/${s}/replay`),
    body: ['publisher'],
  },
  // Pages over the seeded big jobs: the byte cap ends them in the query.
  {
    name: 'GET /v1/jobs (big rows)',
    method: 'GET',
    path: () =>
      fc.constantFrom('/v1/jobs?limit=200', '/v1/jobs?limit=200&operation=charge', '/v1/jobs?limit=1'),
  },
  {
    name: 'GET /v1/dashboard/jobs/:param/stream',
    method: 'GET',
    path: (c) => segment(c.finishedJobId).map((s) => `/v1/dashboard/jobs/${s}/stream`),
  },
  {
    name: 'POST /v1/inbox/:param (raw bytes)',
    method: 'POST',
    path: () => fc.constant('/v1/inbox/payments'),
  },
  { name: 'GET /v1/providers', method: 'GET', path: fixed('/v1/providers') },
  {
    name: 'POST /v1/providers/:param/verify',
    method: 'POST',
    path: () => segment('sim-a').map((s) => `/v1/providers/${s}/verify`),
    body: ['operation'],
  },
  {
    name: 'GET /v1/dashboard/inbox',
    method: 'GET',
    path: fixed('/v1/dashboard/inbox'),
    query: ['limit', 'source'],
  },
  { name: 'GET /v1/dashboard/outbox', method: 'GET', path: fixed('/v1/dashboard/outbox'), query: ['limit'] },
];

// Header values an HTTP client can send: tab, printable ASCII and obs-text. Other control
// bytes never reach onejob: the client and Node's HTTP parser refuse them first.
const headerText = fc.string({
  unit: fc
    .oneof(fc.constant(9), fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0x80, max: 0xff }))
    .map((c) => String.fromCharCode(c)),
  maxLength: 60,
});

const contentType = fc.oneof(
  { weight: 8, arbitrary: fc.constant('application/json') },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      'text/plain',
      'application/xml',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/json; charset=utf-16',
      'application/problem+json',
      'application/octet-stream',
      '*/*',
      '',
    ),
  },
  { weight: 1, arbitrary: headerText },
);

// Routes only the admin token opens (the metrics route answers loopback clients anyway).
const ADMIN_ROUTES = /^(GET \/v1\/outbox\/|POST \/v1\/outbox\/|POST \/v1\/providers\/)/;

function headersFor(c: FuzzContext, route: string) {
  const admin = ADMIN_ROUTES.test(route);
  const token = fc.oneof(
    { weight: admin ? 1 : 8, arbitrary: fc.constant(`Bearer ${c.ownerToken}`) },
    { weight: 1, arbitrary: fc.constant(`Bearer ${c.otherToken}`) },
    { weight: admin ? 8 : 1, arbitrary: fc.constant(`Bearer ${c.adminToken}`) },
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: headerText },
  );
  return fc.record(
    {
      authorization: token,
      'content-type': contentType,
      'idempotency-key': fc.oneof(
        { weight: 4, arbitrary: fc.uuid().map(String) },
        { weight: 1, arbitrary: headerText },
      ),
      traceparent: headerText,
      'x-request-id': headerText,
      'webhook-id': headerText,
      'webhook-timestamp': fc.oneof(headerText, fc.constant(String(Math.floor(Date.now() / 1000)))),
    },
    { requiredKeys: ['authorization', 'content-type'] },
  );
}

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'];

// JSON around bytes that are not UTF-8 (0x80-0xFF alone, overlong forms), or bytes alone.
const rawBytes: fc.Arbitrary<Uint8Array> = fc.oneof(
  fc
    .uint8Array({ minLength: 1, maxLength: 16 })
    .map((junk) =>
      Buffer.concat([
        Buffer.from('{"amount": 3, "note": "'),
        Buffer.from(junk.map((b) => 0x80 | b)),
        Buffer.from('"}'),
      ]),
    ),
  fc.uint8Array({ maxLength: 64 }),
  fc.constant(Buffer.from([0xc0, 0xaf, 0xed, 0xa0, 0x80, 0xff])),
);

/** Standard Webhooks signature over the raw bytes, as a sender computes it. */
function signDelivery(id: string, seconds: number, body: string | Uint8Array): string {
  const key = Buffer.from(FUZZ_SECRET.replace(/^whsec_/, ''), 'base64');
  const mac = createHmac('sha256', key).update(`${id}.${seconds}.`).update(body).digest('base64');
  return `v1,${mac}`;
}

/** Opens `count` dashboard streams on one live job at once; answers by status, then closes them all. */
async function streamBurst(url: string, c: FuzzContext, count: number): Promise<Record<string, number>> {
  const stop = new AbortController();
  const statuses: Record<string, number> = {};
  await Promise.all(
    Array.from({ length: count }, async () => {
      let status: string;
      try {
        const res = await fetch(`${url}/v1/dashboard/jobs/${c.jobId}/stream`, {
          headers: { authorization: `Bearer ${c.ownerToken}` },
          signal: stop.signal,
        });
        status = String(res.status);
        if (res.status !== 200) await res.arrayBuffer();
      } catch (error) {
        status = `dropped ${(error as { cause?: { code?: string } }).cause?.code ?? error}`;
      }
      statuses[status] = (statuses[status] ?? 0) + 1;
    }),
  );
  stop.abort();
  return statuses;
}

/** The request generator over every route. */
export function fuzzRequest(c: FuzzContext): fc.Arbitrary<FuzzRequest & { sign: boolean }> {
  // Routes with a body have more to get wrong: they get more of the requests.
  const route = fc.oneof(...ROUTES.map((r) => ({ weight: r.body ? 3 : 1, arbitrary: fc.constant(r) })));
  return route.chain((route) =>
    fc.record({
      method: fc.oneof(
        { weight: 12, arbitrary: fc.constant(route.method) },
        { weight: 1, arbitrary: fc.constantFrom(...METHODS) },
      ),
      path: fc
        .tuple(route.path(c), route.query ? query(route.query) : fc.constant(''))
        .map(([p, q]) => p + q),
      headers: headersFor(c, route.name).map((h) =>
        Object.fromEntries(Object.entries(h).filter((e): e is [string, string] => e[1] !== undefined)),
      ),
      body: route.name.endsWith('(raw bytes)')
        ? rawBytes
        : fc.oneof(
            { weight: 3, arbitrary: bodyWith(route.body ?? ['input', 'amount', 'text']) },
            {
              weight: 4,
              arbitrary: nearlyValid(VALID_BODIES[(route.body ?? []).join(',')] ?? (() => ({}))),
            },
            { weight: 2, arbitrary: rawBody },
            { weight: 1, arbitrary: fc.constant(undefined) },
          ),
      sign: fc.boolean(),
      route: fc.constant(route.name),
    }),
  );
}

/** Row counts of every table in the onejob schema, in one statement. */
async function countRows(pool: pg.Pool): Promise<() => Promise<string>> {
  const { rows } = await pool.query<{ t: string }>(
    `SELECT format('%I.%I', schemaname, tablename) AS t FROM pg_tables WHERE schemaname = 'onejob' ORDER BY 1`,
  );
  const sql = `SELECT ${rows.map((r, i) => `(SELECT count(*) FROM ${r.t}) AS c${i}`).join(', ')}`;
  return async () => JSON.stringify((await pool.query(sql)).rows[0]);
}

/** Runs `requests` generated requests against `url`, one at a time. */
export async function runFuzz(options: {
  url: string;
  pool: pg.Pool;
  context: FuzzContext;
  seed: number;
  requests: number;
  /** Concurrent dashboard streams opened before the run. Default 150. */
  streams?: number;
  onProgress?: (done: number) => void;
}): Promise<FuzzReport> {
  const report: FuzzReport = {
    seed: options.seed,
    requests: 0,
    byStatus: {},
    byRoute: {},
    serverErrors: 0,
    dropped: 0,
    refusedThatWrote: 0,
    streams: {},
    failures: [],
  };
  // More streams than one owner may hold (maxWaitsPerOwner, 100 by default): the rest are 429s.
  report.streams = await streamBurst(options.url, options.context, options.streams ?? 150);
  for (const [status, n] of Object.entries(report.streams)) {
    if (status === '200' || status === '429') continue;
    report.serverErrors += n;
    report.failures.push(`stream burst: ${n} × ${status}`);
  }
  const counts = await countRows(options.pool);
  const generated = fc.sample(fuzzRequest(options.context), {
    seed: options.seed,
    numRuns: options.requests,
  });
  let before = await counts();
  for (const [i, r] of generated.entries()) {
    const headers = { ...r.headers };
    const body = r.method === 'GET' || r.method === 'HEAD' ? undefined : r.body;
    // Half the inbox deliveries carry a valid signature, so the checks behind it are reached.
    if (r.sign && r.path.startsWith('/v1/inbox/') && body !== undefined) {
      const id = headers['webhook-id'] ?? 'evt';
      const seconds = Math.floor(Date.now() / 1000);
      headers['webhook-timestamp'] = String(seconds);
      headers['webhook-signature'] = signDelivery(id, seconds, body);
    }
    const shown = typeof body === 'string' ? body : body && Buffer.from(body).toString('hex');
    const describe = `#${i} ${r.method} ${r.path.slice(0, 200)} ${JSON.stringify(headers).slice(0, 200)} ${String(shown).slice(0, 200)}`;
    let status: number;
    try {
      const res = await fetch(options.url + r.path, {
        method: r.method,
        headers,
        body: typeof body === 'string' || body === undefined ? body : new Uint8Array(body),
      });
      await res.arrayBuffer();
      status = res.status;
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      // undici refuses some header values itself, before sending: that request never left.
      if (error instanceof TypeError && !cause?.code) continue;
      report.dropped++;
      if (report.failures.length < 10) report.failures.push(`dropped (${cause?.code ?? error}): ${describe}`);
      continue;
    }
    report.requests++;
    report.byStatus[status] = (report.byStatus[status] ?? 0) + 1;
    const route = report.byRoute[r.route] ?? {};
    report.byRoute[r.route] = route;
    route[status] = (route[status] ?? 0) + 1;
    if (status >= 500) {
      report.serverErrors++;
      if (report.failures.length < 10) report.failures.push(`${status}: ${describe}`);
    }
    const after = await counts();
    if (status >= 400 && after !== before) {
      report.refusedThatWrote++;
      if (report.failures.length < 10) report.failures.push(`${status} but rows changed: ${describe}`);
    }
    before = after;
    options.onProgress?.(i + 1);
  }
  return report;
}

/** Seeds a job and a ledger transfer for the owner, so generated paths also name real rows. */
export async function seedFuzzContext(
  url: string,
  tokens: { ownerToken: string; otherToken: string; adminToken: string },
): Promise<FuzzContext> {
  const post = async (path: string, body: unknown, extra: Record<string, string> = {}) => {
    const res = await fetch(url + path, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.ownerToken}`, 'content-type': 'application/json', ...extra },
      body: JSON.stringify(body),
    });
    if (res.status >= 300) throw new Error(`seeding ${path} answered ${res.status}: ${await res.text()}`);
    return (await res.json()) as { id: string };
  };
  const job = await post(
    '/v1/jobs',
    { operation: 'charge', input: { amount: 5 } },
    { 'idempotency-key': 'fuzz-seed' },
  );
  const finished = await post(
    '/v1/jobs',
    { operation: 'charge', input: { amount: 6 } },
    { 'idempotency-key': 'fuzz-seed-finished' },
  );
  await post(`/v1/jobs/${finished.id}/cancel`, {});
  // Big rows for the list pages: 12 jobs of about 300 kB each.
  for (let i = 0; i < 12; i++)
    await post(
      '/v1/jobs',
      { operation: 'charge', input: { amount: 1, pad: 'x'.repeat(300_000) } },
      { 'idempotency-key': `fuzz-seed-big-${i}` },
    );
  await post('/v1/ledger/transfers', {
    id: 'fuzz-seed-transfer',
    debitAccount: 'wallet:fuzz',
    creditAccount: 'revenue:fuzz',
    amount: 100,
    currency: 'USD',
  });
  return {
    ...tokens,
    jobId: job.id,
    finishedJobId: finished.id,
    transferId: 'fuzz-seed-transfer',
    account: 'wallet:fuzz',
  };
}
