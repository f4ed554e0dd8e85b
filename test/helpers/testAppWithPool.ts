import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { startTestApp, type TestApp } from './startTestApp.js';

/**
 * The default test app for the calling test file, and a pool of its own on the app's
 * database for reading rows apart from the engine's: started before the file's tests,
 * ended and closed after them.
 */
export function testAppWithPoolPerFile(): { readonly t: TestApp; readonly pool: pg.Pool } {
  let t: TestApp | undefined;
  let pool: pg.Pool | undefined;
  beforeAll(async () => {
    t = await startTestApp();
    pool = new pg.Pool({ connectionString: t.db.url, max: 2 });
  });
  afterAll(async () => {
    await pool?.end();
    await t?.close();
  });
  const running = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the app runs only while the tests run');
    return value;
  };
  return {
    get t() {
      return running(t);
    },
    get pool() {
      return running(pool);
    },
  };
}
