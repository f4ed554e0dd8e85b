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
  const idleFailed = oncePerOutage(options.logger, 'idle PostgreSQL connection failed');
  pool.on('error', idleFailed);
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
  const lost = oncePerOutage(logger, 'PostgreSQL connection lost while checked out');
  pool.on('connect', (client) => {
    client.on('error', lost);
  });
}

/**
 * A server that dies fails every connection of a pool in the same instant. One warning
 * with the first error says so; the others within `windowMs` are counted into the next
 * warning instead of printing a stack trace each.
 */
export function oncePerOutage(
  logger: Logger | undefined,
  message: string,
  windowMs = 5_000,
): (error: Error) => void {
  let lastAt = Number.NEGATIVE_INFINITY;
  let quiet = 0;
  return (error) => {
    const now = Date.now();
    if (now - lastAt < windowMs) {
      quiet++;
      return;
    }
    lastAt = now;
    const alsoFailed = quiet;
    quiet = 0;
    logger?.warn(alsoFailed > 0 ? { err: error, alsoFailed } : { err: error }, message);
  };
}

/** Anything that can run a query: a pool, or a client inside the caller's transaction. */
export type Queryable = Pick<pg.Pool, 'query'> | Pick<pg.PoolClient, 'query'>;
