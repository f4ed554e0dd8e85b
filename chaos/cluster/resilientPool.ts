import pg from 'pg';

/**
 * A pool for the harness's own queries that survives the database restarts it causes: a
 * connection that dies, idle or checked out, is an expected event, never an unhandled
 * 'error' that would crash the harness.
 */
export function resilientPool(connectionString: string, max: number): pg.Pool {
  // query_timeout: a statement caught by a database restart must fail, never hang a client
  // of the harness (a hung consumer would look like lost events).
  const pool = new pg.Pool({ connectionString, max, connectionTimeoutMillis: 3_000, query_timeout: 10_000 });
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}
