// Behind a transaction pooler a named prepared statement lives on one server session,
// and the next transaction may run on another: it answers "prepared statement does not
// exist" (26000) there, or "already exists" (42P05) where another client prepared it.
// PgBouncer before 1.21 does not track protocol-level prepared statements. The query
// files keep their names (they are what a direct connection prepares once and reuses);
// this drops them, at the one place every query passes, for a pool in transaction mode.
import type pg from 'pg';

type QueryFn = (...args: unknown[]) => unknown;

const patched = new WeakSet<object>();

/** A query config without its `name`; anything else (text, a Submittable) unchanged. */
function withoutName(arg: unknown): unknown {
  if (typeof arg !== 'object' || arg === null || !('name' in arg)) return arg;
  // A Submittable (a cursor, a stream) runs its own protocol; it is not a config to copy.
  if (typeof (arg as { submit?: unknown }).submit === 'function') return arg;
  const { name: _name, ...rest } = arg as Record<string, unknown>;
  return rest;
}

/** Makes `client` send every statement unnamed: parsed, bound and run in one round trip. */
export function sendUnnamedStatements(client: pg.ClientBase): void {
  if (patched.has(client)) return;
  patched.add(client);
  const query = client.query.bind(client) as QueryFn;
  (client as unknown as { query: QueryFn }).query = (first: unknown, ...rest: unknown[]) =>
    query(withoutName(first), ...rest);
}

/**
 * Every connection `pool` opens from now on sends unnamed statements only. Call it before
 * the pool's first checkout (onejob does, on the pool it creates and on a pool you pass).
 */
export function unnamedStatementsOnly(pool: pg.Pool): void {
  pool.on('connect', (client) => sendUnnamedStatements(client));
}
