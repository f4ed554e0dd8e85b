// Migration 0025 replaces the two lists of live attempts (attempts_leases and
// attempts_live_by_owner) with one, attempts_live. On a database at migration 0024 with
// live attempts, both of their readers go on finding them afterwards: the sweep finds the
// lapsed lease and only it, and an owner already at its cap of live attempts gets no more
// while another owner's job is claimed.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/migrate.js';
import { OperationRegistry } from '../../src/operations/operationRegistry.js';
import { claimQueuedJobs } from '../../src/worker/claimJobs.js';
import { findExpiredLeases } from '../../src/worker/leases.js';
import { createEmptyDatabase, type TestDatabase } from '../helpers/testDatabase.js';

let db: TestDatabase;
let pool: pg.Pool;

// Owner "full" has three live attempts (one of them with a lapsed lease), "free" none.
const LIVE: [key: string, state: string, leaseExpiresAt: string][] = [
  ['lapsed', 'running', "now() - interval '1 minute'"],
  ['running', 'running', "now() + interval '1 hour'"],
  ['starting', 'starting', "now() + interval '1 hour'"],
];

const operations = new OperationRegistry({
  config: {
    operations: { noop: { kind: 'http', providers: ['p'], effect: 'exclusive', maxAttempts: 3 } },
  } as never,
  inputChecks: new Map(),
});

const insertJob = async (owner: string, key: string, state: string): Promise<string> => {
  const { rows } = await pool.query<{ id: string }>(
    `INSERT INTO onejob.jobs (id, owner_id, idempotency_key, fingerprint, operation, input, run_after)
     VALUES (gen_random_uuid(), $1, $2, 'f', 'noop', '{}', now() - interval '1 second') RETURNING id`,
    [owner, key],
  );
  const id = rows[0]!.id;
  if (state !== 'queued') {
    await pool.query(
      `UPDATE onejob.jobs SET state = 'running', attempt_count = 1, version = version + 1 WHERE id = $1`,
      [id],
    );
  }
  return id;
};

beforeAll(async () => {
  db = await createEmptyDatabase();
  pool = new pg.Pool({ connectionString: db.url, max: 2 });
  await migrate(db.url, { upTo: 24 });
  for (const [key, state, leaseExpiresAt] of LIVE) {
    const jobId = await insertJob('full', key, 'running');
    await pool.query(
      `INSERT INTO onejob.attempts (id, job_id, owner_id, n, provider, exclusive, state, job_version, lease_owner, lease_expires_at)
       VALUES (gen_random_uuid(), $1, 'full', 1, 'p', true, $2, 2, 'old-worker', ${leaseExpiresAt})`,
      [jobId, state],
    );
  }
  await insertJob('full', 'full-queued', 'queued');
  await insertJob('free', 'free-queued', 'queued');
  await migrate(db.url);
});

afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

describe('migration 0025 on a database with live attempts', () => {
  it('leaves one index listing the live attempts, where there were two', async () => {
    const { rows } = await pool.query<{ name: string }>(
      `SELECT indexrelid::regclass::text AS name FROM pg_index
       WHERE indrelid = 'onejob.attempts'::regclass AND pg_get_expr(indpred, indrelid) LIKE '%running%'
         AND NOT indisunique`,
    );
    expect(rows.map((r) => r.name)).toEqual(['onejob.attempts_live']);
  });

  it('the sweep finds the lapsed lease and only it', async () => {
    const lapsed = await findExpiredLeases(pool);
    expect(lapsed).toHaveLength(1);
    const { rows } = await pool.query<{ key: string }>(
      'SELECT j.idempotency_key AS key FROM onejob.jobs j WHERE j.id = $1',
      [lapsed[0]!.job_id],
    );
    expect(rows[0]!.key).toBe('lapsed');
  });

  it('an owner at its cap of live attempts gets no more; the other owner is served', async () => {
    const claimed = await claimQueuedJobs({ db: pool, keptPlans: false }, operations, {
      id: 'w',
      leaseMs: 10_000,
      limit: 10,
      rotation: async () => ['p'],
      limits: { perOwner: 3, providers: {} },
    });
    const { rows } = await pool.query<{ key: string }>(
      'SELECT idempotency_key AS key FROM onejob.jobs WHERE id = ANY($1::uuid[])',
      [claimed.map((c) => c.job.id)],
    );
    expect(rows.map((r) => r.key)).toEqual(['free-queued']);
  });
});
