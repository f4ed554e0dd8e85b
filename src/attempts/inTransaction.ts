import type pg from 'pg';
import { type Queryable, withTransaction } from '../db/createPool.js';

type Client = Pick<pg.PoolClient, 'query'>;

/**
 * Runs `fn` atomically. On a pool it opens a transaction of its own; on a client it
 * joins the caller's open transaction through a savepoint (PostgreSQL refuses a
 * savepoint outside a transaction, so a client without one fails loudly instead of
 * committing half a change).
 */
export async function inTransaction<T>(db: Queryable, fn: (tx: Client) => Promise<T>): Promise<T> {
  const pool = db as Partial<pg.Pool>;
  if (typeof pool.connect === 'function' && typeof pool.totalCount === 'number') {
    return withTransaction(db as pg.Pool, fn);
  }
  const client = db as Client;
  await client.query('SAVEPOINT onejob_attempts');
  try {
    const result = await fn(client);
    await client.query('RELEASE SAVEPOINT onejob_attempts');
    return result;
  } catch (error) {
    await client.query('ROLLBACK TO SAVEPOINT onejob_attempts').catch(() => undefined);
    throw error;
  }
}
