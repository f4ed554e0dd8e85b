import pg from 'pg';

/** A connection string, or a function giving the current one (the primary of a replicated cluster). */
export type DatabaseTarget = string | (() => string);

/**
 * A pool for the harness's own queries that survives the database restarts it causes: a
 * connection that dies, idle or checked out, is an expected event, never an unhandled
 * 'error' that would crash the harness. Given a function, each new connection goes where
 * it points at that moment: after a failover, to the new primary.
 */
export function resilientPool(target: DatabaseTarget, max: number): pg.Pool {
  // query_timeout: a statement caught by a database restart must fail, never hang a client
  // of the harness (a hung consumer would look like lost events).
  const options = { max, connectionTimeoutMillis: 3_000, query_timeout: 10_000 };
  const pool =
    typeof target === 'string'
      ? new pg.Pool({ connectionString: target, ...options })
      : new pg.Pool({ ...options, Client: followingClient(target) });
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

/** A pg Client class whose every instance connects to `target()` as it is when created. */
function followingClient(target: () => string): typeof pg.Client {
  return class extends pg.Client {
    constructor(config?: pg.ClientConfig) {
      super({ ...config, connectionString: target() });
    }
  };
}
