// Without ONEJOB_METRICS_TOKEN, /metrics answers loopback clients only. A reverse proxy on
// the same host connects from loopback for anyone, so a forwarded request is refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/defaultConfig.js';
import { createOnejob, type Onejob } from '../../src/createOnejob.js';
import { validateConfig } from '../../src/engine/loadConfig.js';
import { ApiKeys } from '../../src/http/apiKeys.js';
import { buildServer } from '../../src/http/buildServer.js';
import { createLogger } from '../../src/observability/createLogger.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';

let db: TestDatabase;
let onejob: Onejob;
beforeAll(async () => {
  db = await createTestDatabase();
  onejob = createOnejob({
    connectionString: db.url,
    config: validateConfig(structuredClone(defaultConfig), 'test config', process.env),
    logger: createLogger('silent'),
  });
});
afterAll(async () => {
  await onejob?.close();
  await db?.drop();
});

describe('/metrics without a metrics token', () => {
  it('a loopback request carrying a forwarding header is refused 403; a plain loopback request is served', async () => {
    const app = await buildServer(onejob, { apiKeys: new ApiKeys([['token-a', 'owner-a']]) });
    try {
      expect((await app.inject({ url: '/metrics' })).statusCode).toBe(200);
      for (const [name, value] of [
        ['x-forwarded-for', '203.0.113.5'],
        ['forwarded', 'for=203.0.113.5'],
        ['x-real-ip', '203.0.113.5'],
        ['x-forwarded-host', 'metrics.example'],
      ]) {
        const res = await app.inject({ url: '/metrics', headers: { [name as string]: value as string } });
        expect(res.statusCode, name).toBe(403);
        expect(res.json().code).toBe('metrics_token_required');
        expect(res.body).not.toContain('onejob_');
      }
    } finally {
      await app.close();
    }
  });

  it('with a metrics token, a forwarded request carrying it is served', async () => {
    const app = await buildServer(onejob, {
      apiKeys: new ApiKeys([['token-a', 'owner-a']]),
      metricsToken: 'scrape-secret-123456',
    });
    try {
      const res = await app.inject({
        url: '/metrics',
        headers: { 'x-forwarded-for': '203.0.113.5', authorization: 'Bearer scrape-secret-123456' },
      });
      expect(res.statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });
});
