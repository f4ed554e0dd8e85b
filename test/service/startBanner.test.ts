import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnOnejob } from '../helpers/spawnOnejob.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db.drop();
});

describe('start banner', () => {
  it('onejob serve prints the /healthz and /readyz addresses, and both answer 200 there', async () => {
    const serve = spawnOnejob(['serve', '--role', 'api'], {
      DATABASE_URL: db.url,
      ONEJOB_API_KEYS: 't=o',
      PORT: '0',
    });
    try {
      // The Database line comes after the addresses: once it is out, the banner is complete.
      await serve.waitForOutput(/^ {2}Database /);
      const line =
        serve
          .output()
          .split('\n')
          .find((l) => l.startsWith('  Health ')) ?? '';
      const urls = line.match(/http:\/\/\S+/g) ?? [];
      expect(urls.map((u) => new URL(u).pathname)).toEqual(['/healthz', '/readyz']);
      for (const url of urls) expect((await fetch(url)).status).toBe(200);
      // Which config runs, and which compat models it serves, where.
      expect(serve.output()).toMatch(/^ {2}Config {5}built-in /m);
      expect(serve.output()).toMatch(
        /^ {2}Compat {5}gpt-4o-mini at http:\/\/\S+\/compat\/openai\/v1 and http:\/\/\S+\/compat\/anthropic$/m,
      );
    } finally {
      await serve.kill();
    }
  });
});
