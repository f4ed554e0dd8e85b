import type pg from 'pg';

/** How many rows `sql` returns. */
export async function countRows(pool: pg.Pool, sql: string, params: unknown[] = []): Promise<number> {
  const { rows } = await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM (${sql}) x`, params);
  return rows[0]!.n;
}

/** How many inbox events, jobs and outbox rows there are: a refused delivery changes none of them. */
export async function inboxWrites(pool: pg.Pool): Promise<{ events: number; jobs: number; outbox: number }> {
  return {
    events: await countRows(pool, 'SELECT 1 FROM onejob.inbox_events'),
    jobs: await countRows(pool, 'SELECT 1 FROM onejob.jobs'),
    outbox: await countRows(pool, 'SELECT 1 FROM onejob.outbox'),
  };
}

/** How many jobs, job events and outbox rows there are: a refused create changes none of them. */
export async function jobWrites(pool: pg.Pool): Promise<{ jobs: number; events: number; outbox: number }> {
  return {
    jobs: await countRows(pool, 'SELECT 1 FROM onejob.jobs'),
    events: await countRows(pool, 'SELECT 1 FROM onejob.job_events'),
    outbox: await countRows(pool, 'SELECT 1 FROM onejob.outbox'),
  };
}
