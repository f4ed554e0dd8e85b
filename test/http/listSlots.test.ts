// One owner's concurrent pages of GET /v1/jobs are capped (http.maxListsPerOwner): past
// the cap the answer is an immediate 429, and other owners' lists are not refused.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/defaultConfig.js';
import type { OnejobConfig } from '../../src/config/types.js';
import { OWNER_B, startTestApp, type TestApp } from '../helpers/startTestApp.js';
import { until } from '../helpers/until.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({
    config: { ...structuredClone(defaultConfig), http: { maxListsPerOwner: 2 } } as OnejobConfig,
  });
});
afterAll(async () => t?.close());

describe('concurrent job lists per owner', () => {
  it('an owner with maxListsPerOwner pages in flight gets 429 with Retry-After for one more; another owner is not refused', async () => {
    // Holds every list in PostgreSQL until the lock is released, so the slots stay taken.
    const locker = new pg.Client({ connectionString: t.db.url });
    await locker.connect();
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE onejob.jobs IN ACCESS EXCLUSIVE MODE');
    try {
      const held = [t.request('/v1/jobs?limit=200'), t.request('/v1/jobs?limit=200')];
      await until('two lists waiting on the lock', async () => {
        // Not through the locker: inside its transaction pg_stat_activity would stay the first snapshot.
        const { rows } = await t.onejob.pool.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%WITH RECURSIVE walk%'",
        );
        return rows[0]!.n >= 2;
      });
      const third = await t.request('/v1/jobs?limit=200');
      expect(third.status).toBe(429);
      expect(third.headers.get('retry-after')).not.toBeNull();
      expect(((await third.json()) as { code: string }).code).toBe('rate_limited');
      const other = t.request('/v1/jobs?limit=200', { token: OWNER_B.token });
      await locker.query('COMMIT');
      expect((await other).status).toBe(200);
      for (const r of await Promise.all(held)) expect(r.status).toBe(200);
      // The slots are given back once the pages are answered.
      expect((await t.request('/v1/jobs?limit=1')).status).toBe(200);
    } finally {
      await locker.query('ROLLBACK').catch(() => undefined);
      await locker.end();
    }
  });
});
