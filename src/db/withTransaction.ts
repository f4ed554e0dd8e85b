import type pg from 'pg';
import type { Queryable } from './createPool.js';
import { mustDropConnection } from './dropBrokenConnections.js';

/** What a function run in a transaction gets: a client to query inside it. */
export type Transaction = Pick<pg.PoolClient, 'query'>;

export interface TransactionOptions {
  /**
   * The client given is idle (outside any transaction, like the migration runner's own
   * connection): open and end a transaction on it instead of joining one.
   */
  begin?: boolean;
}

const isPool = (db: Queryable | pg.Client): db is pg.Pool => {
  const pool = db as Partial<pg.Pool>;
  return typeof pool.connect === 'function' && typeof pool.totalCount === 'number';
};

/**
 * Runs `fn` atomically: the one way onejob opens a transaction.
 *
 * - On a pool: a client of its own, BEGIN, COMMIT (ROLLBACK on error), released after.
 *   A client whose ROLLBACK failed (its connection is gone), or that met an error saying
 *   its host is read-only or going away (failover), is discarded, not reused.
 * - On a client inside the caller's open transaction: a SAVEPOINT, so `fn`'s writes
 *   commit or roll back with the caller's and a failure undoes only `fn`'s part.
 *   PostgreSQL refuses a savepoint outside a transaction, so a client without one fails
 *   loudly instead of committing half a change.
 * - On an idle client with `{ begin: true }`: BEGIN and COMMIT on that client.
 */
export async function withTransaction<T>(pool: pg.Pool, fn: (tx: pg.PoolClient) => Promise<T>): Promise<T>;
export async function withTransaction<T>(
  db: Queryable | pg.Client,
  fn: (tx: Transaction) => Promise<T>,
  options?: TransactionOptions,
): Promise<T>;
export async function withTransaction<T>(
  db: Queryable | pg.Client,
  fn: (tx: pg.PoolClient) => Promise<T>,
  options: TransactionOptions = {},
): Promise<T> {
  if (isPool(db)) {
    const client = await db.connect();
    let broken: Error | undefined;
    try {
      return await run(client, fn, 'BEGIN', 'COMMIT', 'ROLLBACK', (error) => {
        broken = error;
      });
    } catch (error) {
      // A connection on a host that is no longer the primary, or one that is going away.
      if (mustDropConnection(error)) broken ??= error as Error;
      throw error;
    } finally {
      client.release(broken);
    }
  }
  const client = db as pg.PoolClient;
  if (options.begin) return run(client, fn, 'BEGIN', 'COMMIT', 'ROLLBACK');
  return run(
    client,
    fn,
    'SAVEPOINT onejob_tx',
    'RELEASE SAVEPOINT onejob_tx',
    'ROLLBACK TO SAVEPOINT onejob_tx',
  );
}

async function run<T>(
  client: pg.PoolClient,
  fn: (tx: pg.PoolClient) => Promise<T>,
  open: string,
  commit: string,
  rollback: string,
  onRollbackFailed?: (error: Error) => void,
): Promise<T> {
  await client.query(open);
  try {
    const result = await fn(client);
    await client.query(commit);
    return result;
  } catch (error) {
    await client.query(rollback).catch((rollbackError: Error) => onRollbackFailed?.(rollbackError));
    throw error;
  }
}
