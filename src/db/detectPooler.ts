// Finds a transaction pooler that nobody declared, at start, so onejob refuses with an
// error naming the setting instead of failing at random later (a named statement that
// "does not exist", a LISTEN that never hears, a migration lock held by nobody).
//
// `SHOW pool_mode` cannot tell: PgBouncer 1.18 forwards it to PostgreSQL on a normal
// connection (42704, unrecognized configuration parameter) and its admin console answers
// "invalid command". What does tell is two client connections open at once: PostgreSQL
// and a session pooler give each its own server session; a transaction pooler lends both
// the same one when the first is idle, and PgBouncer reuses the last released server
// first (server_round_robin = 0, its default).
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { OnejobError } from '../errors/OnejobError.js';
import { connectToPrimary } from './connectToPrimary.js';
import { POOLER_ENV, type PoolerSettings } from './poolerSettings.js';
import { DUPLICATE_PREPARED_STATEMENT, INVALID_SQL_STATEMENT_NAME, sqlState } from './sqlstate.js';

const ROUNDS = 3;

/** What gave a transaction pooler away, or undefined when the two sessions stayed apart. */
export async function detectTransactionPooler(connectionString: string): Promise<string | undefined> {
  const open = async () => {
    // Through the host list, as every connection of the service: the probe looks at the primary.
    const client = await connectToPrimary(connectionString, { application_name: 'onejob-pooler-probe' });
    client.on('error', () => undefined);
    return client;
  };
  const a = await open();
  try {
    const b = await open();
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const evidence = await probe(a, b);
        if (evidence) return evidence;
      }
      return undefined;
    } finally {
      await b.end().catch(() => undefined);
    }
  } finally {
    await a.end().catch(() => undefined);
  }
}

async function probe(a: pg.Client, b: pg.Client): Promise<string | undefined> {
  const name = `onejob_pooler_probe_${randomBytes(6).toString('hex')}`;
  const text = 'SELECT pg_backend_pid() AS pid';
  try {
    // A prepares a named statement and, outside a transaction, lets its session go.
    const first = await a.query<{ pid: number }>({ name, text });
    // B, still connected beside A, prepares the same name: on A's session it exists already.
    const second = await b.query<{ pid: number }>({ name, text });
    if (first.rows[0]?.pid === second.rows[0]?.pid)
      return `two open connections ran on one server session (backend ${first.rows[0]?.pid})`;
    // A runs its statement again (pg sends no Parse the second time): on another session it is unknown.
    await a.query<{ pid: number }>({ name, text });
    return undefined;
  } catch (error) {
    const code = sqlState(error);
    if (code === DUPLICATE_PREPARED_STATEMENT || code === INVALID_SQL_STATEMENT_NAME)
      return `a named prepared statement answered ${code} (${(error as Error).message})`;
    throw error;
  } finally {
    // Best effort: behind a pooler this may reach a session without the statement.
    await a.query(`DEALLOCATE ${name}`).catch(() => undefined);
    await b.query(`DEALLOCATE ${name}`).catch(() => undefined);
  }
}

/**
 * Refuses to go on when `database.pooler` is not declared and a transaction pooler is in
 * front of `connectionString`. Declared modes are trusted and not probed.
 */
export async function refuseUndeclaredPooler(
  settings: Pick<PoolerSettings, 'mode'>,
  connectionString: string,
): Promise<void> {
  if (settings.mode !== undefined) return;
  const evidence = await detectTransactionPooler(connectionString);
  if (!evidence) return;
  throw new OnejobError(
    'database_pooler_undeclared',
    `DATABASE_URL leads to a transaction pooler (${evidence}), and onejob would fail there at random: ` +
      `set "database": { "pooler": "transaction" } in the config file or ${POOLER_ENV}=transaction ` +
      '(and DATABASE_DIRECT_URL for LISTEN and migrations), or point DATABASE_URL at PostgreSQL ' +
      `or a session-mode pooler; ${POOLER_ENV}=none or session skips this check`,
  );
}
