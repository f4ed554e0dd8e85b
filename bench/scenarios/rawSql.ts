// Raw SQL through `pg` for the worker's limit (claim, then complete), and the seeding
// every scenario starts from. The intake references run in pgbench (pgbench.ts).
import type pg from 'pg';
import { v7 as uuidv7 } from 'uuid';
import { fingerprint } from '../../src/jobs/fingerprint.js';
import { withClient } from '../../test/helpers/withClient.js';
import { type LoadResult, loadWindow, measureLoad } from '../measureLoad.js';
import { type PoolRun, withRunPool } from '../runPool.js';
import { BENCH_OWNER } from '../serverProcess.js';

export type RawRun = PoolRun;

const INPUT = JSON.stringify({ amount: 1, note: 'bench' });
const PRINT = fingerprint({ operation: 'noop', input: JSON.parse(INPUT) });

const withPool = <T>(r: RawRun, fn: (pool: pg.Pool) => Promise<T>) => withRunPool(r, 'onejob-bench-raw', fn);

/** Registers an outbox publisher (its position before every event), as a relay does. */
export async function registerPublisher(url: string, name: string): Promise<void> {
  await withClient(url, (client) =>
    client.query('INSERT INTO onejob.outbox_publishers (name, kind) VALUES ($1, $1) ON CONFLICT DO NOTHING', [
      name,
    ]),
  );
}

// The jobs look as onejob's intake writes them: a UUIDv7 id (its first 48 bits are the
// creation time in milliseconds) and creation times in the order the jobs were made, here
// one millisecond apart and ending a minute ago, so every job is due. The indexes on the
// job's id and on (owner, created_at) then take each new entry at their right edge, and a
// worker claiming in creation order updates neighbouring entries, as in production. A queue
// of random ids sharing one timestamp made each update of a job row land on a random leaf
// of those indexes, which cost the drain about a tenth of its rate (docs/benchmarks.md).
const QUEUE_JOBS_SQL = `
INSERT INTO onejob.jobs (id, owner_id, idempotency_key, fingerprint, operation, input, created_at, run_after)
SELECT (lpad(to_hex(ms), 12, '0') || '7' || substr(r, 14, 3) || '8' || substr(r, 18, 15))::uuid,
       CASE WHEN $6::int = 1 THEN $1 ELSE $1 || '-' || (g % $6::int) END,
       $2 || g, $3, 'noop', $4::jsonb, to_timestamp(ms / 1000.0), to_timestamp(ms / 1000.0)
FROM (
  SELECT g, start + g AS ms, replace(gen_random_uuid()::text, '-', '') AS r
  FROM generate_series(0, $5 - 1) g,
       (SELECT (extract(epoch FROM now()) * 1000)::bigint - $5 - 60000 AS start) b
) s`;

/**
 * Inserts `count` queued jobs `keyPrefix0..count-1` in one statement, with the fingerprint of
 * the bench request body: replays find them, and processing scenarios start from a full queue.
 * `statistics`: analyse the jobs afterwards, or leave the tables without statistics.
 * `owners` > 1 spreads the jobs over that many owners, interleaved in creation order.
 */
export async function queueJobs(
  url: string,
  count: number,
  keyPrefix: string,
  statistics: 'analyse' | 'none' = 'analyse',
  /** Owners the jobs belong to in turn (`bench-0`, `bench-1`, ...); 1: all the bench owner's. */
  owners = 1,
): Promise<void> {
  await withClient(url, async (client) => {
    await client.query(QUEUE_JOBS_SQL, [BENCH_OWNER, keyPrefix, PRINT, INPUT, count, owners]);
    if (statistics === 'analyse') await client.query('ANALYZE onejob.jobs');
    else {
      // A worker started on a freshly filled queue: no statistics, and none arriving during
      // the run (autovacuum would analyse the tables within a minute).
      const { rows } = await client.query<{ t: string }>(
        "SELECT format('%I.%I', schemaname, relname) AS t FROM pg_stat_user_tables WHERE schemaname = 'onejob'",
      );
      for (const { t } of rows) await client.query(`ALTER TABLE ${t} SET (autovacuum_enabled = false)`);
    }
  });
}

/** A budget for the bench owner far above anything a run spends: every hold is checked and fits. */
export async function setBenchBudget(url: string): Promise<void> {
  await withClient(url, (client) =>
    client.query(
      `INSERT INTO onejob.budgets (owner_id, currency, limit_micros, period) VALUES ($1, 'USD', 1000000000000, 'day')`,
      [BENCH_OWNER],
    ),
  );
}

// A worker must commit its claim before it calls the provider (a crash mid-call must
// leave a trace), so the minimum is two commits per job: claim, then complete with its
// event. Both are single statements, so two round trips.
const CLAIM_SQL = `
UPDATE onejob.jobs j SET state = 'running', attempt_count = attempt_count + 1, updated_at = now()
WHERE j.id = (
  SELECT id FROM onejob.jobs WHERE lane = 'queued' AND run_after <= now()
  ORDER BY run_after, created_at LIMIT 1 FOR UPDATE SKIP LOCKED)
RETURNING j.id, j.version`;

const COMPLETE_SQL = `
WITH done AS (
  UPDATE onejob.jobs SET state = 'succeeded', version = version + 1, result = $3::jsonb,
         finished_at = now(), updated_at = now()
  WHERE id = $1 AND version = $2 AND completed_by IS NULL
  RETURNING id, owner_id
)
INSERT INTO onejob.job_events (id, owner_id, job_id, type, data, publish)
SELECT $4, owner_id, id, 'succeeded', $5::jsonb, 'onejob.job.succeeded' FROM done`;

/** (f) SKIP LOCKED claim, then compare-and-swap completion plus its event row, per job. */
export function rawClaimComplete(r: RawRun): Promise<LoadResult> {
  let empty = false;
  return withPool(r, (pool) =>
    measureLoad({
      label: 'raw claim+complete SQL',
      ...loadWindow(r),
      done: () => empty,
      op: async () => {
        const { rows } = await pool.query<{ id: string; version: number }>(CLAIM_SQL);
        const job = rows[0];
        if (!job) {
          empty = true;
          return []; // nothing claimed: not an operation
        }
        const eventId = uuidv7();
        const data = `{"jobId":"${job.id}","state":"succeeded","version":${job.version + 1}}`;
        const { rowCount } = await pool.query(COMPLETE_SQL, [
          job.id,
          job.version,
          '{"ok":true}',
          eventId,
          data,
        ]);
        if (rowCount !== 1) throw new Error('raw complete lost its compare-and-swap');
      },
    }),
  );
}
