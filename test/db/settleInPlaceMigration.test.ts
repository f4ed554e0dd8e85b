// Migration 0022 moves the jobs table's work lists from `state` to `lane`: on a database at
// migration 0021 with queued, waiting, running, unknown and settled jobs, every job keeps
// its state, the queued ones are still found on the claim's index and the unknown one on
// the gauge's, and settling the running job afterwards rewrites its row in place (HOT)
// instead of adding an entry to every index of jobs.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/migrate.js';
import { UNTIL_NEXT_DUE_SQL } from '../../src/worker/untilNextDue.js';
import { UNKNOWN_JOBS_SQL } from '../../src/worker/workerHousekeeping.js';
import { createEmptyDatabase, type TestDatabase } from '../helpers/testDatabase.js';

let db: TestDatabase;
let pool: pg.Pool;

const JOBS: [key: string, state: string, runAfter: string][] = [
  ['due', 'queued', "now() - interval '1 minute'"],
  ['waiting', 'queued', "now() + interval '1 hour'"],
  ['running', 'running', 'now()'],
  ['unknown', 'unknown', 'now()'],
  ['settled', 'succeeded', 'now()'],
];

beforeAll(async () => {
  db = await createEmptyDatabase();
  pool = new pg.Pool({ connectionString: db.url, max: 2 });
  // The schema of migration 0021, as the migrator leaves it.
  await migrate(db.url, { upTo: 21 });
  for (const [key, state, runAfter] of JOBS) {
    // Inserted as intake does (queued), then moved as the claim and the settlements do.
    const { rows } = await pool.query<{ id: string }>(
      `INSERT INTO onejob.jobs (id, owner_id, idempotency_key, fingerprint, operation, input, run_after)
       VALUES (gen_random_uuid(), 'o', $1, 'f', 'op', '{}', ${runAfter}) RETURNING id`,
      [key],
    );
    if (state === 'queued') continue;
    await pool.query(`UPDATE onejob.jobs SET state = 'running' WHERE id = $1`, [rows[0]!.id]);
    if (state !== 'running') {
      await pool.query(
        `UPDATE onejob.jobs SET state = $2, finished_at = CASE WHEN $2 = 'succeeded' THEN now() END WHERE id = $1`,
        [rows[0]!.id, state],
      );
    }
  }
  await migrate(db.url);
});

afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

describe('migration 0022 on a database with jobs in every state', () => {
  it('every job keeps its state, and its lane is the work list its state puts it on', async () => {
    const { rows } = await pool.query<{ key: string; state: string; lane: string | null }>(
      'SELECT idempotency_key AS key, state, lane FROM onejob.jobs ORDER BY idempotency_key',
    );
    expect(rows).toEqual([
      { key: 'due', state: 'queued', lane: 'queued' },
      { key: 'running', state: 'running', lane: null },
      { key: 'settled', state: 'succeeded', lane: null },
      { key: 'unknown', state: 'unknown', lane: 'unknown' },
      { key: 'waiting', state: 'queued', lane: 'queued' },
    ]);
  });

  it('the queued jobs are on the claim index and the unknown one is counted, read from indexes alone', async () => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SET LOCAL enable_seqscan = off');
      const due = await client.query(
        `SELECT idempotency_key FROM onejob.jobs j WHERE j.owner_id = 'o' AND j.lane = 'queued' AND j.run_after <= now()
         ORDER BY j.owner_id, j.run_after, j.created_at`,
      );
      expect(due.rows.map((r) => r.idempotency_key)).toEqual(['due']);
      const next = await client.query<{ ms: number }>(UNTIL_NEXT_DUE_SQL);
      expect(next.rows[0]!.ms).toBeGreaterThan(59 * 60_000);
      const unknown = await client.query<{ n: number }>(UNKNOWN_JOBS_SQL);
      expect(unknown.rows[0]!.n).toBe(1);
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
  });

  it('settling the running job afterwards is an in-place update that writes no index entry', async () => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      // This backend's counters (pending ones included): one more update, and it was heap-only.
      const counters = async () =>
        (
          await client.query<{ upd: number; hot: number }>(
            `SELECT n_tup_upd::int AS upd, n_tup_hot_upd::int AS hot FROM pg_stat_xact_user_tables
             WHERE relid = 'onejob.jobs'::regclass`,
          )
        ).rows[0]!;
      const before = await counters();
      await client.query(
        `UPDATE onejob.jobs SET state = 'succeeded', version = version + 1, result = '{"ok": true}',
           finished_at = now(), updated_at = now()
         WHERE idempotency_key = 'running'`,
      );
      const after = await counters();
      expect({ upd: after.upd - before.upd, hot: after.hot - before.hot }).toEqual({ upd: 1, hot: 1 });
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
  });
});
