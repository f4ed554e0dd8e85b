// The database for read-only CLI commands (ledger, inbox): DATABASE_URL, else the
// embedded server of ./.onejob (adopted if `onejob serve` is running it).
import pg from 'pg';
import { startEmbedded } from '../../db/startEmbedded.js';

export async function withDatabase<T>(fn: (pool: pg.Pool) => Promise<T>): Promise<T> {
  const embedded = process.env.DATABASE_URL ? undefined : await startEmbedded('.onejob');
  const pool = new pg.Pool({
    connectionString: process.env.DATABASE_URL ?? embedded!.connectionString,
    max: 2,
  });
  try {
    return await fn(pool);
  } finally {
    await pool.end();
    await embedded?.stop();
  }
}
