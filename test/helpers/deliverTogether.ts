import type { Pool } from 'pg';
import { until } from './until.js';

/**
 * Sends `n` deliveries so that all of them are inside the database at the same instant:
 * a lock on the jobs table holds the first one just before it inserts its job, and the
 * gate opens only once the other n-1 wait on that first one's inbox row.
 */
export async function deliverTogether(
  pool: Pool,
  n: number,
  send: (i: number) => Promise<Response>,
): Promise<Response[]> {
  const gate = await pool.connect();
  let sent: Promise<Response>[] = [];
  try {
    await gate.query('BEGIN');
    await gate.query('LOCK TABLE onejob.jobs IN SHARE ROW EXCLUSIVE MODE');
    sent = Array.from({ length: n }, (_, i) => send(i));
    await until(
      `${n} deliveries waiting at the gate`,
      async () => {
        // Polled outside the gate's transaction: pg_stat_activity is a snapshot taken once
        // per transaction, so inside it backends that connected later never appear.
        const { rows } = await pool.query<{ waiting: number }>(
          `SELECT count(*)::int AS waiting FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
           WHERE NOT l.granted AND a.datname = current_database()`,
        );
        return rows[0]?.waiting === n;
      },
      90_000,
    );
    await gate.query('COMMIT');
  } catch (error) {
    await gate.query('ROLLBACK').catch(() => undefined);
    await Promise.allSettled(sent);
    throw error;
  } finally {
    gate.release();
  }
  return Promise.all(sent);
}
