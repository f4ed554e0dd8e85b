import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { createTestDatabase, type TestDatabase } from './testDatabase.js';

/**
 * One session on a database of the calling test file's own, for tests that read the catalog
 * or plans: connected before the file's tests, ended and dropped after them.
 */
export function sessionPerFile(): () => pg.Client {
  let db: TestDatabase | undefined;
  let client: pg.Client | undefined;
  beforeAll(async () => {
    db = await createTestDatabase();
    client = new pg.Client({ connectionString: db.url });
    await client.connect();
  });
  afterAll(async () => {
    await client?.end();
    await db?.drop();
  });
  return () => {
    if (!client) throw new Error('the session exists only while the tests run');
    return client;
  };
}
