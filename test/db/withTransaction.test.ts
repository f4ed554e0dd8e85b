import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool } from '../../src/db/createPool.js';
import { withTransaction } from '../../src/db/withTransaction.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';

let db: TestDatabase;
let pool: pg.Pool;
beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool({ connectionString: db.url });
  await pool.query('CREATE TABLE tx_probe (v text PRIMARY KEY)');
});
afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

const values = async () =>
  (await pool.query<{ v: string }>('SELECT v FROM tx_probe ORDER BY v')).rows.map((r) => r.v);

describe('withTransaction', () => {
  it('on a pool, commits on success and leaves nothing behind on failure', async () => {
    await withTransaction(pool, (tx) => tx.query(`INSERT INTO tx_probe VALUES ('pool-ok')`));
    await expect(
      withTransaction(pool, async (tx) => {
        await tx.query(`INSERT INTO tx_probe VALUES ('pool-failed')`);
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await values()).toEqual(['pool-ok']);
    expect(pool.idleCount).toBe(pool.totalCount);
    await pool.query('TRUNCATE tx_probe');
  });

  it('a connection whose host turned read-only (25006) is destroyed, not handed out again', async () => {
    const one = createPool({ connectionString: db.url, max: 1 });
    try {
      const client = await one.connect();
      // What a demoted primary does to a session: every transaction is read-only from now on.
      await client.query('SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY');
      const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      client.release();
      const refused = withTransaction(one, (tx) => tx.query(`INSERT INTO tx_probe VALUES ('read-only')`));
      await expect(refused).rejects.toMatchObject({ code: '25006' });
      const next = (await one.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      expect(next).not.toBe(pid);
      await withTransaction(one, (tx) => tx.query(`INSERT INTO tx_probe VALUES ('writable')`));
      expect(await values()).toEqual(['writable']);
      await pool.query('TRUNCATE tx_probe');
    } finally {
      await one.end();
    }
  });

  it("inside a caller's transaction, joins it: its writes roll back with the caller's", async () => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await withTransaction(client, (tx) => tx.query(`INSERT INTO tx_probe VALUES ('joined')`));
      // Not visible to others before the caller commits: it did not commit on its own.
      expect(await values()).toEqual([]);
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
    expect(await values()).toEqual([]);
  });

  it("inside a caller's transaction, a failure undoes only its own part and the caller goes on", async () => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(`INSERT INTO tx_probe VALUES ('caller')`);
      await expect(
        withTransaction(client, async (tx) => {
          await tx.query(`INSERT INTO tx_probe VALUES ('inner')`);
          await tx.query(`INSERT INTO tx_probe VALUES ('caller')`); // unique violation
        }),
      ).rejects.toThrow();
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    expect(await values()).toEqual(['caller']);
    await pool.query('TRUNCATE tx_probe');
  });

  it('refuses a client outside any transaction instead of committing half a change', async () => {
    const client = await pool.connect();
    try {
      await expect(
        withTransaction(client, (tx) => tx.query(`INSERT INTO tx_probe VALUES ('loose')`)),
      ).rejects.toThrow(/SAVEPOINT/i);
    } finally {
      client.release();
    }
    expect(await values()).toEqual([]);
  });

  it('on an idle client with { begin: true }, opens and ends a transaction of its own', async () => {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      await expect(
        withTransaction(
          client,
          async (tx) => {
            await tx.query(`INSERT INTO tx_probe VALUES ('own-failed')`);
            throw new Error('boom');
          },
          { begin: true },
        ),
      ).rejects.toThrow('boom');
      await withTransaction(client, (tx) => tx.query(`INSERT INTO tx_probe VALUES ('own-ok')`), {
        begin: true,
      });
    } finally {
      await client.end();
    }
    expect(await values()).toEqual(['own-ok']);
  });
});
