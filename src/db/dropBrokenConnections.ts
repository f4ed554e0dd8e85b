// Which errors leave a pooled connection unfit to hand out again. pg-pool's own
// `pool.query` destroys the client after any error; a transaction's client is returned
// after a successful ROLLBACK unless it is named here.
import { isDatabaseUnavailable, READ_ONLY_SQL_TRANSACTION, sqlState } from './sqlstate.js';

/**
 * True when the client that met `error` must be destroyed, not returned to the pool: its
 * host turned read-only (25006: a standby now, or demoted; the session is still on it and
 * would refuse every write), its server is shutting down or restarting (57P01-57P03), or
 * its socket broke. The next checkout opens a new connection, which finds the new primary.
 */
export function mustDropConnection(error: unknown): boolean {
  return sqlState(error) === READ_ONLY_SQL_TRANSACTION || isDatabaseUnavailable(error);
}
