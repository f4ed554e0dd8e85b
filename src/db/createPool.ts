import type pg from 'pg';
import type { Logger } from 'pino';
import { newPool } from './HostListPool.js';

export interface PoolOptions {
  connectionString: string;
  max?: number;
  applicationName?: string;
  logger?: Logger;
  /** libpq's `options` startup parameter (`-c name=value ...`): settings for every connection. */
  sessionOptions?: string;
}

/**
 * A pg pool configured for a service that must survive its database going away:
 * idle-client errors are logged instead of crashing the process, and connection
 * attempts give up quickly so callers can answer 503 rather than hang.
 */
export function createPool(options: PoolOptions): pg.Pool {
  // A host list (`h1,h2` with target_session_attrs) gets a pool that finds the primary.
  const pool = newPool({
    connectionString: options.connectionString,
    max: options.max ?? 20,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    application_name: options.applicationName ?? 'onejob',
    ...(options.sessionOptions ? { options: options.sessionOptions } : {}),
  });
  pool.on('error', (error) => {
    options.logger?.warn({ err: error }, 'idle PostgreSQL connection failed');
  });
  guardCheckedOutClients(pool, options.logger);
  return pool;
}

/**
 * pg-pool listens for errors only on idle clients. A client checked out for a transaction
 * (a relay batch publishing to a broker, a worker between two statements) that loses its
 * server emits 'error' with no listener, which kills the process. Every client gets a
 * listener of its own; the statement that follows fails and the transaction rolls back.
 */
export function guardCheckedOutClients(pool: pg.Pool, logger?: Logger): void {
  pool.on('connect', (client) => {
    client.on('error', (error) => {
      logger?.warn({ err: error }, 'PostgreSQL connection lost while checked out');
    });
  });
}

/** Anything that can run a query: a pool, or a client inside the caller's transaction. */
export type Queryable = Pick<pg.Pool, 'query'> | Pick<pg.PoolClient, 'query'>;
