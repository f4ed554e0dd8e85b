import Fastify from 'fastify';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { errorHandler } from '../../src/http/errorHandler.js';
import { startTestApp, type TestApp } from '../helpers/startTestApp.js';
import { createTestDatabase, databaseUrl, type TestDatabase } from '../helpers/testDatabase.js';

const apps: TestApp[] = [];
afterAll(async () => {
  for (const app of apps) await app.close().catch(() => undefined);
});

/** A TestDatabase whose URL points at a database or role that does not exist. */
function missing(url: string): TestDatabase {
  return { name: 'missing', url, drop: async () => {} };
}

describe('a database that is gone is a 503 with Retry-After, never a 500', () => {
  it('after the database is dropped (SQLSTATE 3D000), routes answer 503 database_unavailable with Retry-After', async () => {
    const db = await createTestDatabase();
    const t = await startTestApp({ db });
    apps.push(t);
    expect((await t.request('/v1/jobs?limit=1')).status).toBe(200);
    await db.drop();
    const res = await t.request('/v1/jobs?limit=1');
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(((await res.json()) as { code: string }).code).toBe('database_unavailable');
  });

  it('a role the server does not know (SQLSTATE 28000) is a 503 too', async () => {
    const url = new URL(databaseUrl('postgres'));
    url.username = 'onejob_no_such_role';
    const t = await startTestApp({ db: missing(url.toString()) });
    apps.push(t);
    const res = await t.request('/v1/ledger/accounts/cash');
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
  });
});

describe('a failover in progress is a 503 with Retry-After, never a 500', () => {
  it('a write that reaches a host that turned read-only (SQLSTATE 25006) answers 503 database_unavailable', async () => {
    // The session of a standby, or of a primary demoted under it: every write is refused.
    const pool = new pg.Pool({
      connectionString: databaseUrl('postgres'),
      options: '-c default_transaction_read_only=on',
      max: 1,
    });
    const app = Fastify();
    app.setErrorHandler(errorHandler);
    app.post('/write', async () => {
      await pool.query('CREATE TABLE failover_probe (v int)');
      return { ok: true };
    });
    try {
      const res = await app.inject({ method: 'POST', url: '/write' });
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBe('1');
      expect(res.headers['content-type']).toContain('application/problem+json');
      expect(res.json()).toMatchObject({ code: 'database_unavailable', status: 503 });
    } finally {
      await app.close();
      await pool.end();
    }
  });
});

describe('a value the database refuses is the request at fault', () => {
  it('a data exception (SQLSTATE class 22) that slips past the input checks is a 400 value_invalid, not a 500', async () => {
    const pool = new pg.Pool({ connectionString: databaseUrl('postgres'), max: 1 });
    const app = Fastify();
    app.setErrorHandler(errorHandler);
    app.get<{ Querystring: { at: string } }>('/at', async (request) => {
      await pool.query('SELECT $1::timestamptz', [request.query.at]);
      return { ok: true };
    });
    try {
      const ok = await app.inject({ url: '/at?at=2025-02-28T10:00:00Z' });
      expect(ok.statusCode).toBe(200);
      const res = await app.inject({ url: '/at?at=2025-02-30T10:00:00Z' });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 'value_invalid', status: 400 });
      expect(res.body).not.toContain('timestamptz');
    } finally {
      await app.close();
      await pool.end();
    }
  });
});
