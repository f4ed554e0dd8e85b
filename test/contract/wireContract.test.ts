// The wire contract (src/contract) is the one description of what the HTTP API answers.
// This test drives every route of /openapi.json and checks each answer against the schema
// that route serves there, with additionalProperties: false on every object: a field a
// view adds without naming it in the contract fails here, and so does a required field a
// view leaves out. Problem documents are checked against the Problem schema.
//
// The server serialises handler output with plain JSON.stringify (buildServer), so the
// bytes checked are exactly what the handler returned; the last test pins that.
import { createHmac } from 'node:crypto';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import type * as client from '../../src/client/index.js';
import { defaultConfig } from '../../src/config/defaultConfig.js';
import type { OnejobConfig } from '../../src/config/types.js';
import * as contract from '../../src/contract/index.js';
import { ApiKeys } from '../../src/http/apiKeys.js';
import { buildServer } from '../../src/http/buildServer.js';
import { answer } from '../../src/http/schemas.js';
import type { InboxEventView } from '../../src/inbox/listInboxEvents.js';
import type { JobEventView } from '../../src/jobs/jobHistory.js';
import type { AttemptView, JobView } from '../../src/jobs/jobView.js';
import type { Balance } from '../../src/ledger/getBalance.js';
import type { AccountPage } from '../../src/ledger/listAccounts.js';
import type { EntryPage } from '../../src/ledger/listEntries.js';
import type { TransferView } from '../../src/ledger/transferView.js';
import type { DeadLetterPage } from '../../src/outbox/deadLetters.js';
import type { PublisherBacklog } from '../../src/outbox/outboxBacklog.js';
import type { ProviderStatus } from '../../src/providers/verification/providerStatus.js';
import type { VerificationReport } from '../../src/providers/verification/verifyProvider.js';
import { markDead } from '../helpers/deadLetters.js';
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../helpers/startTestApp.js';

/** Routes whose answers follow another contract than onejob's, each with the reason. */
const OTHER_CONTRACTS: Record<string, string> = {
  'GET /metrics': 'Prometheus text exposition format',
  'GET /v1/dashboard/jobs/{id}/stream': 'a server-sent event stream of Job documents',
  'POST /compat/openai/v1/chat/completions': "OpenAI's wire format (docs/compat.md)",
  'GET /compat/openai/v1/models': "OpenAI's wire format (docs/compat.md)",
  'POST /compat/anthropic/v1/messages': "Anthropic's wire format (docs/compat.md)",
  'GET /compat/anthropic/v1/models': "Anthropic's wire format (docs/compat.md)",
};

// ajv-formats is CommonJS: its default export arrives wrapped under NodeNext resolution.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const SECRET_ENV = 'CONTRACT_TEST_WEBHOOK_SECRET';

const config = {
  ...structuredClone(defaultConfig),
  inbox: {
    sources: {
      payments: {
        scheme: 'standard-webhooks',
        secretEnv: SECRET_ENV,
        eventId: 'header:webhook-id',
        operation: 'charge',
        ownerId: 'owner-a',
      },
    },
  },
  limits: { enabled: false },
} as OnejobConfig;

interface Operation {
  responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
}
type Spec = { paths: Record<string, Record<string, Operation>>; components: unknown };

/** Every object schema that names its properties gets additionalProperties: false unless it says otherwise. */
function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (!schema || typeof schema !== 'object') return schema;
  const copy = Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, closed(v)]));
  if ('properties' in copy && !('additionalProperties' in copy)) copy.additionalProperties = false;
  return copy;
}

/** The served OpenAPI document as one validator per route and status. */
function contractChecker(spec: Spec) {
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ $id: 'openapi.json', ...(closed(spec) as object) });
  const problem = ajv.compile(closed({ ...contract.problemSchema, $id: 'ProblemDocument' }) as object);
  const pointer = (...parts: string[]) =>
    parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');
  const routes = Object.entries(spec.paths).flatMap(([template, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({
      key: `${method.toUpperCase()} ${template}`,
      template,
      method,
      operation,
      pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
    })),
  );
  const compiled = new Map<string, ValidateFunction>();

  /** Errors of one answer against its route's contract; [] when it conforms. */
  return {
    routes,
    check(method: string, path: string, status: number, contentType: string, body: unknown): string[] {
      const route = routes.find((r) => r.method === method.toLowerCase() && r.pattern.test(path));
      if (!route) return [`${method} ${path} is not in /openapi.json`];
      if (contentType.startsWith('application/problem+json')) return errorLines(problem, body);
      const declared = route.operation.responses[String(status)]?.content?.['application/json'];
      if (!declared) return [`${route.key} answered ${status}, which its contract does not declare`];
      const ref = `openapi.json#/${pointer('paths', route.template, route.method, 'responses', String(status), 'content', 'application/json', 'schema')}`;
      let validate = compiled.get(ref);
      if (!validate) {
        validate = ajv.compile({ $ref: ref });
        compiled.set(ref, validate);
      }
      return errorLines(validate, body);
    },
  };
}

function errorLines(validate: ValidateFunction, body: unknown): string[] {
  if (validate(body)) return [];
  return (validate.errors ?? []).map(
    (e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`,
  );
}

let t: TestApp;
let checker: ReturnType<typeof contractChecker>;
const answered = new Set<string>();

/** Sends a request, checks the answer against the contract, and returns the parsed body. */
async function call(
  method: string,
  path: string,
  init: { json?: unknown; token?: string | null; headers?: Record<string, string>; body?: string } = {},
) {
  const response = await t.request(path, { method, ...init });
  const body = JSON.parse(await response.text());
  const contentType = response.headers.get('content-type') ?? '';
  const pathname = new URL(path, 'http://x').pathname;
  const errors = checker.check(method, pathname, response.status, contentType, body);
  expect(errors, `${method} ${path} answered ${response.status} ${JSON.stringify(body)}`).toEqual([]);
  const route = checker.routes.find((r) => r.method === method.toLowerCase() && r.pattern.test(pathname));
  if (response.status < 300 && route) answered.add(route.key);
  return { status: response.status, body, headers: response.headers };
}

/** A Standard Webhooks delivery, signed over its bytes. */
function signed(id: string, body: string) {
  const seconds = Math.floor(Date.now() / 1000);
  const key = Buffer.from(SECRET.replace(/^whsec_/, ''), 'base64');
  const mac = createHmac('sha256', key).update(`${id}.${seconds}.`).update(body).digest('base64');
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(seconds),
    'webhook-signature': `v1,${mac}`,
  };
}

beforeAll(async () => {
  process.env[SECRET_ENV] = SECRET;
  t = await startTestApp({ config });
  // A registered publisher, so jobs' events get deliveries and one can become a dead letter.
  await t.onejob.pool.query(`INSERT INTO onejob.outbox_publishers (name, kind) VALUES ('log', 'log')`);
  checker = contractChecker((await (await t.request('/openapi.json', { token: null })).json()) as Spec);
});
afterAll(async () => {
  await t?.close();
  delete process.env[SECRET_ENV];
});

const newJob = async (key: string, input: Record<string, unknown> = { amount: 5 }) =>
  (
    await call('POST', '/v1/jobs', {
      headers: { 'idempotency-key': key },
      json: { operation: 'charge', input },
    })
  ).body as client.Job;

describe('every answer of the HTTP API conforms to the wire contract', () => {
  it('health and readiness', async () => {
    await call('GET', '/healthz', { token: null });
    await call('GET', '/readyz', { token: null });
  });

  it('jobs: intake, replay, reads, lists, long-polls, history', async () => {
    const job = await newJob('contract-1');
    expect(
      (
        await call('POST', '/v1/jobs', {
          headers: { 'idempotency-key': 'contract-1' },
          json: { operation: 'charge', input: { amount: 5 } },
        })
      ).headers.get('idempotent-replayed'),
    ).toBe('true');
    await call('GET', `/v1/jobs/${job.id}`);
    await call('GET', `/v1/jobs/${job.id}?waitMs=1`);
    const page = await call('GET', '/v1/jobs?limit=1');
    expect(page.body.items).toHaveLength(1);
    await call('GET', `/v1/jobs/${job.id}/events`);
    const deliveries = await call('GET', `/v1/jobs/${job.id}/deliveries`);
    expect(deliveries.body.items[0].deliveries).toHaveLength(1);
  });

  it('jobs: the problems of intake and reads', async () => {
    expect(
      (await call('POST', '/v1/jobs', { json: { operation: 'charge', input: { amount: 5 } } })).status,
    ).toBe(400);
    const reused = await call('POST', '/v1/jobs', {
      headers: { 'idempotency-key': 'contract-1' },
      json: { operation: 'charge', input: { amount: 6 } },
    });
    expect([reused.status, reused.body.code]).toEqual([409, 'idempotency_key_reused']);
    const invalid = await call('POST', '/v1/jobs', {
      headers: { 'idempotency-key': 'contract-x' },
      json: { operation: 'charge', input: { amount: 'x' } },
    });
    expect([invalid.status, invalid.body.errors.length > 0]).toEqual([422, true]);
    const unknown = await call('POST', '/v1/jobs', {
      headers: { 'idempotency-key': 'contract-y' },
      json: { operation: 'nope', input: {} },
    });
    expect(unknown.status).toBe(422);
    const malformed = await call('POST', '/v1/jobs', {
      headers: { 'idempotency-key': 'contract-z', 'content-type': 'application/json' },
      body: '{"operation": ',
    });
    expect([malformed.status, typeof malformed.body.line]).toEqual([400, 'number']);
    expect((await call('GET', '/v1/jobs/0190a0b0-0000-7000-8000-000000000000')).status).toBe(404);
    expect((await call('GET', '/v1/jobs', { token: null })).status).toBe(401);
  });

  it('attempts: the fallback button, abandon and cancel', async () => {
    const job = await newJob('contract-attempts');
    const attempt = await call('POST', `/v1/jobs/${job.id}/attempts`, { json: {} });
    expect([attempt.status, attempt.body.n]).toEqual([202, 1]);
    const refused = await call('POST', `/v1/jobs/${job.id}/attempts`, { json: {} });
    expect([refused.status, refused.body.liveAttempts]).toEqual([409, [{ n: 1, state: 'starting' }]]);
    // As a worker would have it: the call is out, its outcome not known.
    await t.onejob.pool.query(`UPDATE onejob.attempts SET state = 'running' WHERE job_id = $1`, [job.id]);
    const abandoned = await call('POST', `/v1/jobs/${job.id}/attempts/1/abandon`, {
      json: { reason: 'checked' },
    });
    expect(abandoned.status).toBe(200);
    const again = await call('POST', `/v1/jobs/${job.id}/attempts/1/abandon`, {
      json: { reason: 'checked' },
    });
    expect(again.status).toBe(409);
    expect((await call('POST', `/v1/jobs/${job.id}/cancel`, { json: {} })).status).toBe(200);
    expect((await call('POST', `/v1/jobs/${job.id}/cancel`, { json: {} })).status).toBe(200);
  });

  it('inbox: a signed delivery, its redelivery, the recorded events', async () => {
    const body = JSON.stringify({ amount: 3 });
    const first = await call('POST', '/v1/inbox/payments', {
      token: null,
      headers: signed('evt_contract', body),
      body,
    });
    const again = await call('POST', '/v1/inbox/payments', {
      token: null,
      headers: signed('evt_contract', body),
      body,
    });
    expect([first.status, again.body]).toEqual([202, first.body]);
    expect(
      (
        await call('POST', '/v1/inbox/payments', {
          token: null,
          headers: { 'content-type': 'application/json' },
          body,
        })
      ).status,
    ).toBe(401);
    const events = await call('GET', '/v1/inbox-events');
    expect(events.body.items[0].deliveries).toBe(2);
    await call('GET', '/v1/dashboard/inbox');
  });

  it('ledger: transfers, replays, reversals, balances, entries, accounts', async () => {
    const transfer = {
      id: 't-contract',
      debitAccount: 'cash',
      creditAccount: 'sales',
      amount: 700,
      currency: 'EUR',
    };
    expect((await call('POST', '/v1/ledger/transfers', { json: transfer })).status).toBe(201);
    expect((await call('POST', '/v1/ledger/transfers', { json: transfer })).status).toBe(200);
    expect((await call('POST', '/v1/ledger/transfers', { json: { ...transfer, amount: 1 } })).status).toBe(
      409,
    );
    const reversal = { id: 't-contract-rev', reason: 'refund' };
    expect((await call('POST', '/v1/ledger/transfers/t-contract/reverse', { json: reversal })).status).toBe(
      201,
    );
    expect((await call('POST', '/v1/ledger/transfers/t-contract/reverse', { json: reversal })).status).toBe(
      200,
    );
    await call('GET', '/v1/ledger/transfers/t-contract');
    const hold = {
      ...transfer,
      debitAccount: 'wallet',
      creditAccount: 'shop',
      id: 't-contract-hold',
      pending: true,
    };
    expect((await call('POST', '/v1/ledger/transfers', { json: hold })).status).toBe(201);
    expect((await call('POST', '/v1/ledger/transfers', { json: hold })).status).toBe(200);
    expect(
      (await call('POST', '/v1/ledger/transfers/t-contract-hold/post', { json: { amount: 500 } })).status,
    ).toBe(201);
    expect((await call('POST', '/v1/ledger/transfers/t-contract-hold/void', { json: {} })).status).toBe(409);
    await call('GET', '/v1/ledger/transfers/t-contract-hold/pending');
    const released = { ...hold, id: 't-contract-void' };
    expect((await call('POST', '/v1/ledger/transfers', { json: released })).status).toBe(201);
    expect(
      (await call('POST', '/v1/ledger/transfers/t-contract-void/void', { json: { reason: 'x' } })).status,
    ).toBe(201);
    expect((await call('GET', '/v1/ledger/transfers/nope')).status).toBe(404);
    await call('GET', '/v1/ledger/accounts/cash');
    const entries = await call('GET', '/v1/ledger/accounts/cash/entries');
    expect(entries.body.items).toHaveLength(2);
    await call('GET', '/v1/ledger/accounts');
  });

  it('outbox: backlog, dead letters and their replay', async () => {
    const job = await newJob('contract-dead');
    await markDead(t.onejob.pool, job.id);
    await call('GET', '/v1/outbox/backlog', { token: ADMIN_TOKEN });
    expect((await call('GET', '/v1/outbox/backlog')).status).toBe(403);
    const dead = await call('GET', '/v1/outbox/dead-letters', { token: ADMIN_TOKEN });
    expect(dead.body.items).toHaveLength(1);
    await call('GET', '/v1/dashboard/outbox');
    const eventId = dead.body.items[0].eventId;
    await call('POST', `/v1/outbox/dead-letters/${eventId}/replay`, { token: ADMIN_TOKEN, json: {} });
    expect(
      (await call('POST', `/v1/outbox/dead-letters/${eventId}/replay`, { token: ADMIN_TOKEN, json: {} }))
        .status,
    ).toBe(404);
  });

  it('providers: the matrix and a verification report', async () => {
    const report = await call('POST', '/v1/providers/sim-a/verify', {
      token: ADMIN_TOKEN,
      json: { operation: 'summarize' },
    });
    expect(report.body.passed).toBe(true);
    const list = await call('GET', '/v1/providers');
    expect(list.body.items.length).toBeGreaterThan(0);
    expect(
      (await call('POST', '/v1/providers/sim-a/verify', { token: ADMIN_TOKEN, json: { operation: 'nope' } }))
        .status,
    ).toBe(422);
  });

  it("budgets: set, read, the owner's own, and their problems", async () => {
    expect((await call('GET', '/v1/budget')).body).toEqual({ items: [] });
    expect((await call('GET', '/v1/budgets/owner-a/USD', { token: ADMIN_TOKEN })).status).toBe(404);
    const budget = { limitMicros: 5000, period: 'month' };
    expect((await call('PUT', '/v1/budgets/owner-a/USD', { token: ADMIN_TOKEN, json: budget })).status).toBe(
      200,
    );
    expect(
      (
        await call('PUT', '/v1/budgets/owner-a/USD', {
          token: ADMIN_TOKEN,
          json: { ...budget, period: 'week' },
        })
      ).status,
    ).toBe(400);
    expect((await call('GET', '/v1/budgets/owner-a/USD', { token: ADMIN_TOKEN })).status).toBe(200);
    expect((await call('GET', '/v1/budget')).body.items).toHaveLength(1);
    expect((await call('GET', '/v1/budgets/owner-a/USD')).status).toBe(403);
  });

  it('every route of /openapi.json was answered with a 2xx and checked, but those of other contracts', () => {
    const unchecked = checker.routes
      .map((r) => r.key)
      .filter((k) => !answered.has(k) && !(k in OTHER_CONTRACTS));
    expect(unchecked).toEqual([]);
  });
});

describe('the check itself', () => {
  it('refuses an answer with a field the contract does not name, or without a required one', async () => {
    const job = await newJob('contract-self');
    const route = 'GET';
    const ok = checker.check(route, `/v1/jobs/${job.id}`, 200, 'application/json', job);
    expect(ok).toEqual([]);
    const extra = checker.check(route, `/v1/jobs/${job.id}`, 200, 'application/json', {
      ...job,
      ownerId: 'owner-a',
    });
    expect(extra.join()).toMatch(/additionalProperty.*ownerId/);
    const { version: _version, ...missing } = job;
    expect(checker.check(route, `/v1/jobs/${job.id}`, 200, 'application/json', missing).join()).toMatch(
      /version/,
    );
    const nested = {
      ...job,
      attempts: [
        {
          id: job.id,
          n: 1,
          provider: 'p',
          state: 'running',
          startedAt: job.createdAt,
          finishedAt: null,
          error: null,
          lease: 'x',
        },
      ],
    };
    expect(checker.check(route, `/v1/jobs/${job.id}`, 200, 'application/json', nested).join()).toMatch(
      /lease/,
    );
    const problem = { type: 'x', title: 'x', status: 400, code: 'x', detail: 'x', stack: 'at ...' };
    expect(checker.check('POST', '/v1/jobs', 400, 'application/problem+json', problem).join()).toMatch(
      /stack/,
    );
    expect(checker.check(route, `/v1/jobs/${job.id}`, 201, 'application/json', job).join()).toMatch(
      /does not declare/,
    );
  });

  it('the server sends what a handler returns, fields outside the response schema included', async () => {
    const app = await buildServer(t.onejob, { apiKeys: new ApiKeys([]) });
    app.get(
      '/contract-probe',
      { schema: { response: { 200: answer('probe', contract.healthSchema) } }, config: { public: true } },
      async () => ({ status: 'ok', undeclared: 1 }),
    );
    const response = await app.inject({ url: '/contract-probe' });
    expect(response.json()).toEqual({ status: 'ok', undeclared: 1 });
    await app.close();
  });
});

describe('one set of types: views, SDK and CLI all use the contract', () => {
  it('the server views and the client types are the contract types', () => {
    expectTypeOf<JobView>().toEqualTypeOf<contract.Job>();
    expectTypeOf<client.Job>().toEqualTypeOf<contract.Job>();
    expectTypeOf<AttemptView>().toEqualTypeOf<client.Attempt>();
    expectTypeOf<TransferView>().toEqualTypeOf<client.Transfer>();
    expectTypeOf<Balance>().toEqualTypeOf<client.Balance>();
    expectTypeOf<AccountPage>().toEqualTypeOf<client.AccountPage>();
    expectTypeOf<EntryPage>().toEqualTypeOf<client.EntryPage>();
    expectTypeOf<DeadLetterPage>().toEqualTypeOf<client.DeadLetterPage>();
    expectTypeOf<PublisherBacklog>().toEqualTypeOf<client.PublisherBacklog>();
    expectTypeOf<Omit<InboxEventView, 'ownerId'>>().toEqualTypeOf<client.InboxEvent>();
    expectTypeOf<JobEventView>().toEqualTypeOf<client.JobEvent>();
    expectTypeOf<ProviderStatus>().toEqualTypeOf<client.ProviderStatus>();
    expectTypeOf<VerificationReport>().toEqualTypeOf<client.VerificationReport>();
    type Sdk = ReturnType<typeof client.createClient>;
    expectTypeOf<Awaited<ReturnType<Sdk['providers']['list']>>>().toEqualTypeOf<client.ProviderList>();
    expectTypeOf<
      Awaited<ReturnType<Sdk['providers']['verify']>>
    >().toEqualTypeOf<client.VerificationReport>();
    expectTypeOf<Awaited<ReturnType<Sdk['jobs']['abandon']>>>().toEqualTypeOf<client.Job>();
  });

  it('the contract imports only the state vocabulary at run time, so the client bundle stays free of server code', async () => {
    const { readdirSync, readFileSync } = await import('node:fs');
    const dir = new URL('../../src/contract/', import.meta.url);
    for (const file of readdirSync(dir)) {
      const text = readFileSync(new URL(file, dir), 'utf8');
      for (const [line, specifier] of text.matchAll(/^(?:import|export)\b[^;]*?\bfrom '([^']+)'/gm)) {
        if (/^import type /.test(line) && specifier === 'json-schema-to-ts') continue;
        expect(specifier, `${file}: ${line}`).toMatch(/^\.\/|^\.\.\/vocabulary\//);
      }
    }
  });
});
