import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/defaultConfig.js';
import { createOnejob, type Onejob } from '../../src/createOnejob.js';
import { migrate } from '../../src/db/migrate.js';
import { type EmbeddedDatabase, startEmbedded } from '../../src/db/startEmbedded.js';
import { validateConfig } from '../../src/engine/loadConfig.js';
import { ApiKeys } from '../../src/http/apiKeys.js';
import { buildServer } from '../../src/http/buildServer.js';
import { createLogger } from '../../src/observability/createLogger.js';
import { apiBase, spawnOnejob } from '../helpers/spawnOnejob.js';
import { tempFolderPerFile } from '../helpers/tempFolder.js';

const home = tempFolderPerFile('onejob-embedded-');

describe('embedded PostgreSQL', () => {
  it('the database going away gives 503 with Retry-After, never 500, and the service recovers when it returns', async () => {
    let db: EmbeddedDatabase = await startEmbedded(join(home(), 'outage'));
    await migrate(db.connectionString);
    const onejob: Onejob = createOnejob({
      connectionString: db.connectionString,
      config: validateConfig(structuredClone(defaultConfig)),
      logger: createLogger('silent'),
    });
    const app = await buildServer(onejob, { apiKeys: new ApiKeys([['tok', 'owner']]) });
    const post = (key: string) =>
      app.inject({
        method: 'POST',
        url: '/v1/jobs',
        headers: { authorization: 'Bearer tok', 'idempotency-key': key, 'content-type': 'application/json' },
        payload: { operation: 'charge', input: { amount: 1 } },
      });
    try {
      expect((await post('before')).statusCode).toBe(202);
      await db.stop();
      for (const key of ['during-1', 'during-2']) {
        const r = await post(key);
        expect(r.statusCode).toBe(503);
        expect(r.headers['retry-after']).toBe('1');
        expect(r.json()).toMatchObject({ code: 'database_unavailable', status: 503 });
      }
      const ready = await app.inject({ method: 'GET', url: '/readyz' });
      expect(ready.statusCode).toBe(503);
      const get = await app.inject({
        method: 'GET',
        url: '/v1/jobs',
        headers: { authorization: 'Bearer tok' },
      });
      expect(get.statusCode).toBe(503);

      db = await startEmbedded(join(home(), 'outage'));
      const after = await post('after');
      expect(after.statusCode).toBe(202);
      const replay = await post('before');
      expect(replay.statusCode).toBe(202);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    } finally {
      await app.close();
      await onejob.close();
      await db.stop();
    }
  });

  it('onejob serve with no DATABASE_URL starts the embedded server, prints where to look, and is ready', async () => {
    const cwd = join(home(), 'bare');
    await import('node:fs/promises').then((fs) => fs.mkdir(cwd, { recursive: true }));
    const serve = spawnOnejob(
      ['serve'],
      { DATABASE_URL: undefined, ONEJOB_API_KEYS: undefined, PORT: '0', ONEJOB_CONFIG: undefined },
      cwd,
    );
    try {
      const base = await apiBase(serve, 90_000);
      const tokenLine = await serve.waitForOutput(/Token\s+\S+/);
      const token = /Token\s+(\S+)/.exec(tokenLine)![1]!;
      const ready = await fetch(`${base}/readyz`);
      expect(ready.status).toBe(200);
      const created = await fetch(`${base}/v1/jobs`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'idempotency-key': 'hello',
          'content-type': 'application/json',
        },
        body: JSON.stringify({ operation: 'charge', input: { amount: 1 } }),
      });
      expect(created.status).toBe(202);
      expect(serve.output()).toContain(join(cwd, '.onejob', 'pg'));
    } finally {
      expect(await serve.kill('SIGTERM')).toBe(0);
    }
  });

  it('refuses to start with DATABASE_URL but no ONEJOB_API_KEYS, saying what to set', async () => {
    const serve = spawnOnejob(['serve'], {
      DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test',
      ONEJOB_API_KEYS: undefined,
      PORT: '0',
    });
    expect(await serve.exited).toBe(2);
    expect(serve.output()).toMatch(/ONEJOB_API_KEYS is not set/);
  });
});
