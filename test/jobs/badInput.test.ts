import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobWrites } from '../helpers/countRows.js';
import { startTestApp, type TestApp } from '../helpers/startTestApp.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

const rowCounts = () => jobWrites(t.onejob.pool);

const good = JSON.stringify({ operation: 'charge', input: { amount: 100 } });

interface Case {
  name: string;
  status: number;
  code: string;
  headers?: Record<string, string>;
  body?: string;
  token?: string | null;
  /** request_invalid names the field at fault, in the detail and as `param`. */
  detail?: RegExp;
  param?: string;
}

const cases: Case[] = [
  { name: 'no idempotency key', status: 400, code: 'idempotency_key_missing', headers: {} },
  {
    name: 'empty idempotency key',
    status: 400,
    code: 'idempotency_key_invalid',
    headers: { 'idempotency-key': '' },
  },
  {
    name: '256-character key',
    status: 400,
    code: 'idempotency_key_invalid',
    headers: { 'idempotency-key': 'k'.repeat(256) },
  },
  {
    name: 'non-ASCII key',
    status: 400,
    code: 'idempotency_key_invalid',
    headers: { 'idempotency-key': 'clé-ü' },
  },
  {
    name: 'control character in key',
    status: 400,
    code: 'idempotency_key_invalid',
    headers: { 'idempotency-key': 'a\tb' },
  },
  { name: 'malformed JSON', status: 400, code: 'invalid_json', body: '{"operation": "charge", "input": {' },
  { name: 'empty body', status: 400, code: 'invalid_json', body: '' },
  {
    name: 'array body',
    status: 400,
    code: 'request_invalid',
    body: '[1,2]',
    detail: /^body must be object$/,
  },
  {
    name: 'string body',
    status: 400,
    code: 'request_invalid',
    body: '"charge"',
    detail: /^body must be object$/,
  },
  {
    name: 'input is not an object',
    status: 400,
    code: 'request_invalid',
    body: '{"operation":"charge","input":[1]}',
    detail: /^body field input must be object$/,
    param: 'input',
  },
  {
    name: 'missing input',
    status: 400,
    code: 'request_invalid',
    body: '{"operation":"charge"}',
    detail: /^body field input is required$/,
    param: 'input',
  },
  {
    name: 'unknown top-level field',
    status: 400,
    code: 'request_invalid',
    body: '{"operation":"charge","input":{"amount":1},"ownerId":"x"}',
    detail: /^body field ownerId is not a known property \(known: operation, input,/,
    param: 'ownerId',
  },
  {
    name: 'body over 1 MiB',
    status: 413,
    code: 'payload_too_large',
    body: JSON.stringify({ operation: 'charge', input: { amount: 1, pad: 'x'.repeat(1024 * 1024) } }),
  },
  {
    name: 'unknown operation',
    status: 422,
    code: 'operation_unknown',
    body: '{"operation":"refund","input":{"amount":1}}',
  },
  {
    name: 'input failing inputSchema',
    status: 422,
    code: 'input_invalid',
    body: '{"operation":"charge","input":{"amount":0}}',
  },
  {
    name: 'input of the wrong type',
    status: 422,
    code: 'input_invalid',
    body: '{"operation":"charge","input":{"amount":"10"}}',
  },
  { name: 'no token', status: 401, code: 'unauthorized', token: null },
  { name: 'wrong token', status: 401, code: 'unauthorized', token: 'not-a-token' },
  {
    name: 'text/plain body',
    status: 415,
    code: 'unsupported_media_type',
    headers: { 'idempotency-key': 'k', 'content-type': 'text/plain' },
  },
];

describe('bad input to POST /v1/jobs gets a clear problem and writes nothing', () => {
  it.each(cases)('$name → $status $code', async (c) => {
    const before = await rowCounts();
    const headers = new Headers(c.headers ?? { 'idempotency-key': `bad-${c.name}` });
    if (!headers.has('content-type')) headers.set('content-type', 'application/json');
    const response = await t.request('/v1/jobs', {
      method: 'POST',
      headers,
      body: c.body ?? good,
      token: c.token === undefined ? 'token-a' : c.token,
    });
    expect(response.status).toBe(c.status);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const problem = (await response.json()) as Record<string, unknown>;
    expect(problem).toMatchObject({ status: c.status, code: c.code });
    if (c.detail) expect(problem.detail).toMatch(c.detail);
    if (c.param) expect(problem.param).toBe(c.param);
    expect(typeof problem.title).toBe('string');
    expect(typeof problem.detail).toBe('string');
    expect(problem.type).toBe(`https://onejob.dev/errors/${c.code}`);
    expect(JSON.stringify(problem)).not.toMatch(/at .*\.ts:|SELECT|INSERT/);
    expect(await rowCounts()).toEqual(before);
  });

  it('request_invalid names the query parameter at fault, an unknown one by its name', async () => {
    const unknown = await t.request('/v1/jobs?colour=red');
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toMatchObject({
      code: 'request_invalid',
      param: 'colour',
      detail: expect.stringMatching(/^query field colour is not a known property \(known: .*limit/),
    });
    const bad = await t.request('/v1/jobs?limit=lots');
    expect(await bad.json()).toMatchObject({
      code: 'request_invalid',
      param: 'limit',
      detail: expect.stringMatching(/^query field limit must be integer$/),
    });
  });

  it('a bad input does not burn the key: the same key then works with a good body', async () => {
    const bad = await t.request('/v1/jobs', {
      method: 'POST',
      headers: { 'idempotency-key': 'burn-test', 'content-type': 'application/json' },
      body: '{"operation":"charge","input":{"amount":-5}}',
    });
    expect(bad.status).toBe(422);
    const ok = await t.request('/v1/jobs', {
      method: 'POST',
      headers: { 'idempotency-key': 'burn-test', 'content-type': 'application/json' },
      body: good,
    });
    expect(ok.status).toBe(202);
    expect(ok.headers.get('idempotent-replayed')).toBeNull();
  });

  it('GET of a malformed or unknown job id is a 404 problem, and unknown routes are problems too', async () => {
    for (const path of ['/v1/jobs/not-a-uuid', '/v1/jobs/00000000-0000-7000-8000-000000000000']) {
      const r = await t.request(path);
      expect(r.status).toBe(404);
      expect(((await r.json()) as { code: string }).code).toBe('job_not_found');
    }
    const r = await t.request('/v1/nothing-here');
    expect(r.status).toBe(404);
    expect(((await r.json()) as { code: string }).code).toBe('route_not_found');
    const w = await t.request('/v1/jobs/00000000-0000-7000-8000-000000000000?waitMs=99999999');
    expect(w.status).toBe(400);
    expect(((await w.json()) as { code: string }).code).toBe('request_invalid');
  });
});

describe('malformed JSON says where parsing stopped', () => {
  const post = (body: string) =>
    t.request('/v1/jobs', {
      method: 'POST',
      headers: { 'idempotency-key': 'json-position', 'content-type': 'application/json' },
      body,
    });

  it.each([
    ['a missing value', '{"operation": "charge", "input": {"amount": }}', 1, 45, 'value expected'],
    ['a missing comma on line 3', '{\n  "operation": "charge"\n  "input": {}\n}', 3, 3, 'comma expected'],
    ['a trailing comma', '{"operation": "charge", "input": {},}', 1, 37, 'property name expected'],
    ['an unfinished body', '{"operation": "charge", "input": {', 1, 35, 'close brace expected'],
    ['a bare word', 'charge', 1, 1, 'invalid symbol'],
  ])('%s: 400 invalid_json with its line and column', async (_name, body, line, column, problem) => {
    const response = await post(body);
    expect(response.status).toBe(400);
    const doc = (await response.json()) as Record<string, unknown>;
    expect(doc).toMatchObject({ code: 'invalid_json', line, column });
    expect(doc.detail).toBe(
      `The request body is not valid JSON: parsing stopped at line ${line}, column ${column} (byte ${doc.offset}): ${problem}.`,
    );
  });

  it('the offset counts bytes, so a client can cut the body where parsing stopped', async () => {
    const body = '{"operation": "charge", "input": {"note": "café", "amount": }}';
    const doc = (await (await post(body)).json()) as { offset: number; column: number };
    expect(Buffer.from(body).subarray(doc.offset).toString()).toBe('}}');
    expect(doc.column).toBe(body.indexOf('}}') + 1);
  });

  it('a body that poisons a prototype is still refused', async () => {
    const response = await post('{"operation": "charge", "input": {"__proto__": {"admin": true}}}');
    expect(response.status).toBe(400);
  });
});

describe('docs/api.md on a string where a number belongs', () => {
  it('states the codes the server gives: 400 for a route field, 422 for a job input', async () => {
    const transfer = await t.request('/v1/ledger/transfers', {
      method: 'POST',
      json: { id: 'doc-t1', debitAccount: 'cash', creditAccount: 'revenue', amount: '12', currency: 'EUR' },
    });
    expect(transfer.status).toBe(400);
    expect(((await transfer.json()) as { code: string }).code).toBe('request_invalid');
    const job = await t.request('/v1/jobs', {
      method: 'POST',
      headers: { 'idempotency-key': 'doc-amount-string' },
      json: { operation: 'charge', input: { amount: '12' } },
    });
    expect(job.status).toBe(422);
    expect(((await job.json()) as { code: string }).code).toBe('input_invalid');

    const doc = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'api.md'), 'utf8').replace(
      /\s+/g,
      ' ',
    );
    expect(doc).toContain('is `400 request_invalid` (a ledger transfer\'s `"amount": "12"`)');
    expect(doc).toContain('is `422 input_invalid` (`{"amount": "12"}` for `charge`)');
    expect(doc).not.toContain('`"amount": "12"` is a 400)');
  });
});

describe('bytes the HTTP parser rejects', () => {
  it('a control character in a header gets a problem document, not a bare parser error', async () => {
    const { connect } = await import('node:net');
    const url = new URL(t.url);
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(url.port), url.hostname, () => {
        socket.write(
          'POST /v1/jobs HTTP/1.1\r\nHost: x\r\nIdempotency-Key: a\x01b\r\nContent-Length: 0\r\n\r\n',
        );
      });
      let data = '';
      socket.on('data', (chunk) => {
        data += chunk.toString();
      });
      socket.on('end', () => resolve(data));
      socket.on('error', reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400/);
    expect(raw).toMatch(/content-type: application\/problem\+json/i);
    expect(JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4))).toMatchObject({
      status: 400,
      code: 'request_invalid',
    });
  });
});
