import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/defaultConfig.js';
import { createOnejob } from '../../src/createOnejob.js';
import { unnamedStatementsOnly } from '../../src/db/unnamedStatements.js';
import { createLogger } from '../../src/observability/createLogger.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => db?.drop());

/** The statements the session of `client` holds prepared, protocol-level ones included. */
const prepared = async (client: pg.PoolClient) =>
  (await client.query<{ name: string }>('SELECT name FROM pg_prepared_statements')).rows.map((r) => r.name);

describe('a pool in transaction-pooler mode', () => {
  it('prepares nothing on the server, whatever name a query carries, and still answers it', async () => {
    const pool = new pg.Pool({ connectionString: db.url, max: 1 });
    unnamedStatementsOnly(pool);
    try {
      const { rows } = await pool.query({
        name: 'onejob-named',
        text: 'SELECT $1::int + 1 AS n',
        values: [41],
      });
      expect(rows).toEqual([{ n: 42 }]);
      const client = await pool.connect();
      try {
        await client.query({ name: 'onejob-named-too', text: 'SELECT 1' });
        expect(await prepared(client)).toEqual([]);
      } finally {
        client.release();
      }
    } finally {
      await pool.end();
    }
  });

  it('a plain pool does prepare named statements (what the mode avoids)', async () => {
    const pool = new pg.Pool({ connectionString: db.url, max: 1 });
    try {
      const client = await pool.connect();
      try {
        await client.query({ name: 'onejob-named', text: 'SELECT 1' });
        expect(await prepared(client)).toEqual(['onejob-named']);
      } finally {
        client.release();
      }
    } finally {
      await pool.end();
    }
  });

  it('the engine in transaction mode sends its own statements unnamed on a pool you pass, and by name otherwise', async () => {
    const named = async (pooler: string | undefined) => {
      const pool = new pg.Pool({ connectionString: db.url, max: 1 });
      const onejob = createOnejob({
        pool,
        config: structuredClone(defaultConfig),
        env: pooler ? { ONEJOB_DATABASE_POOLER: pooler } : {},
        logger: createLogger('silent'),
      });
      try {
        await onejob.jobs.create({
          ownerId: 'o',
          idempotencyKey: `k-${pooler}`,
          operation: 'charge',
          input: { amount: 1 },
        });
        await onejob.wakeups.flush();
        const client = await pool.connect();
        try {
          return await prepared(client);
        } finally {
          client.release();
        }
      } finally {
        await onejob.close();
        await pool.end();
      }
    };
    expect(await named('transaction')).toEqual([]);
    expect((await named(undefined)).length).toBeGreaterThan(0);
  });
});
