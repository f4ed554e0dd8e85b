import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/defaultConfig.js';
import { createOnejob, type Onejob } from '../../src/createOnejob.js';
import { validateConfig } from '../../src/engine/loadConfig.js';
import { ApiKeys } from '../../src/http/apiKeys.js';
import { buildServer } from '../../src/http/buildServer.js';
import { createLogger } from '../../src/observability/createLogger.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';

// The job history routes belong to the API: a server without the dashboard serves them the same.

let db: TestDatabase;
let onejob: Onejob;
let app: FastifyInstance;
const auth = { authorization: 'Bearer token-a' };

beforeAll(async () => {
  db = await createTestDatabase();
  onejob = createOnejob({
    connectionString: db.url,
    config: validateConfig(structuredClone(defaultConfig), 'test config', process.env),
    logger: createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'),
  });
  app = await buildServer(onejob, { apiKeys: new ApiKeys([['token-a', 'owner-a']]), dashboard: false });
});
afterAll(async () => {
  await app?.close();
  await onejob?.close();
  await db?.drop();
});

describe('the API with the dashboard disabled', () => {
  it("serves a job's events and deliveries, and no dashboard page or summaries", async () => {
    const created = await app.inject({
      method: 'POST',
      url: '/v1/jobs',
      headers: { ...auth, 'idempotency-key': 'no-dashboard-1' },
      payload: { operation: 'charge', input: { amount: 1 } },
    });
    const { id } = created.json() as { id: string };
    const events = await app.inject({ url: `/v1/jobs/${id}/events`, headers: auth });
    expect(events.statusCode).toBe(200);
    expect((events.json() as { items: { type: string }[] }).items.map((e) => e.type)).toEqual(['created']);
    const deliveries = await app.inject({ url: `/v1/jobs/${id}/deliveries`, headers: auth });
    expect(deliveries.statusCode).toBe(200);
    expect(
      (await app.inject({ url: '/v1/jobs/00000000-0000-7000-8000-000000000000/events', headers: auth }))
        .statusCode,
    ).toBe(404);
    expect((await app.inject({ url: '/' })).statusCode).toBe(404);
    expect((await app.inject({ url: '/v1/dashboard/outbox', headers: auth })).statusCode).toBe(404);
    const spec = (await app.inject({ url: '/openapi.json' })).json() as { paths: Record<string, unknown> };
    expect(Object.keys(spec.paths)).toEqual(
      expect.arrayContaining(['/v1/jobs/{id}/events', '/v1/jobs/{id}/deliveries']),
    );
  });
});
