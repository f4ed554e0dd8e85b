// Starts the real HTTP service in-process on a loopback port, against a fresh database.
import type { FastifyInstance } from 'fastify';
import { defaultConfig } from '../../src/config/defaultConfig.js';
import type { OnejobConfig } from '../../src/config/types.js';
import { createOnejob, type Onejob } from '../../src/createOnejob.js';
import { validateConfig } from '../../src/engine/loadConfig.js';
import { ApiKeys } from '../../src/http/apiKeys.js';
import { buildServer } from '../../src/http/buildServer.js';
import { createLogger } from '../../src/observability/createLogger.js';
import { createTestDatabase, type TestDatabase } from './testDatabase.js';

export const OWNER_A = { token: 'token-a', owner: 'owner-a' };
export const OWNER_B = { token: 'token-b', owner: 'owner-b' };
export const ADMIN_TOKEN = 'admin-secret-for-tests';

export interface TestApp {
  url: string;
  app: FastifyInstance;
  onejob: Onejob;
  db: TestDatabase;
  /** fetch against the app with owner A's token unless `token` says otherwise. */
  request(path: string, init?: RequestInit & { token?: string | null; json?: unknown }): Promise<Response>;
  close(): Promise<void>;
}

export async function startTestApp(
  options: {
    config?: OnejobConfig;
    db?: TestDatabase;
    poolMax?: number;
    /** Collects the service's log lines (JSON, info and up) instead of dropping them. */
    logLines?: string[];
  } = {},
): Promise<TestApp> {
  const db = options.db ?? (await createTestDatabase());
  const config = validateConfig(structuredClone(options.config ?? defaultConfig), 'test config', process.env);
  const onejob = createOnejob({
    connectionString: db.url,
    config,
    logger: options.logLines
      ? createLogger('info', { write: (line: string) => void options.logLines?.push(line) })
      : createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'),
  });
  const app = await buildServer(onejob, {
    apiKeys: new ApiKeys([
      [OWNER_A.token, OWNER_A.owner],
      [OWNER_B.token, OWNER_B.owner],
    ]),
    adminToken: ADMIN_TOKEN,
  });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    url: address,
    app,
    onejob,
    db,
    request(path, init = {}) {
      const { token = OWNER_A.token, json, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (token !== null) headers.set('authorization', `Bearer ${token}`);
      if (json !== undefined) headers.set('content-type', 'application/json');
      return fetch(address + path, {
        ...rest,
        headers,
        body: json !== undefined ? JSON.stringify(json) : rest.body,
      });
    },
    async close() {
      await app.close();
      await onejob.close();
      if (!options.db) await db.drop();
    },
  };
}

/** POST /v1/jobs with an idempotency key. */
export function postJob(
  t: TestApp,
  key: string | undefined,
  body: unknown,
  token: string | null = OWNER_A.token,
) {
  const headers: Record<string, string> = {};
  if (key !== undefined) headers['idempotency-key'] = key;
  return t.request('/v1/jobs', { method: 'POST', headers, json: body, token });
}
