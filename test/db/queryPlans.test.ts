// Plans a new database gets, before any statistics exist.
//
// PostgreSQL checks a foreign key by looking the key up in the referenced table once per
// written row, with a plan a session may cache. On a new database there are no statistics,
// and an index that matches only the key's leading column costs the same as the unique
// one: a cached plan can then read every row sharing that leading column for each check,
// and writes slow down as the table grows. This test plans each check of the schema the
// way a session would keep it (generic plan, fresh empty tables) and requires a unique
// index on the key's own columns, so each check reads at most one row.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeptPlanPool, KEPT_PLAN_SETTINGS } from '../../src/db/keptPlanPool.js';
import { withLiterals } from '../../src/db/withLiterals.js';
import { recordJobEvent } from '../../src/events/recordJobEvent.js';
import { ARCHIVE_PICK_SQL } from '../../src/jobs/archiveJobs.js';
import { completeAttempt } from '../../src/jobs/completeAttempt.js';
import { completeWinners, WIN_MANY_SQL } from '../../src/jobs/completeWinners.js';
import { CREATE_BATCH_SQL } from '../../src/jobs/createJobsBatch.js';
import { failAttempt } from '../../src/jobs/failAttempt.js';
import { FIND_BY_IDS_SQL } from '../../src/jobs/findJobsById.js';
import { FIND_BY_KEYS_SQL } from '../../src/jobs/findJobsByKey.js';
import { LIST_SQL } from '../../src/jobs/listJobs.js';
import { markUnknown } from '../../src/jobs/markUnknown.js';
import { OperationRegistry } from '../../src/operations/operationRegistry.js';
import { claimFromPosition } from '../../src/outbox/claimFromPosition.js';
import { claimOutboxBatch } from '../../src/outbox/claimOutboxBatch.js';
import { markPublished } from '../../src/outbox/markPublished.js';
import {
  CLAIM_PARAMS,
  CLAIM_PLANNER_SQL,
  CLAIM_SQL_PARAMS,
  claimBatchSql,
  claimQueuedJobs,
  claimUnownedAttempt,
  claimValues,
} from '../../src/worker/claimJobs.js';
import { completeAndClaim } from '../../src/worker/completeAndClaim.js';
import {
  claimUnknownAttempt,
  findExpiredLeases,
  markRunning,
  releaseLease,
  renewLeases,
} from '../../src/worker/leases.js';
import { UNTIL_NEXT_DUE_SQL } from '../../src/worker/untilNextDue.js';
import { UNKNOWN_JOBS_SQL } from '../../src/worker/workerHousekeeping.js';
import { sessionPerFile } from '../helpers/sessionPerFile.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';

const client = sessionPerFile();

interface ForeignKey {
  name: string;
  referenced: string;
  columns: string[];
}

const FOREIGN_KEYS_SQL = `
SELECT c.conname AS name, c.confrelid::regclass::text AS referenced,
       array_agg(a.attname::text ORDER BY k.ord) AS columns
FROM pg_constraint c
CROSS JOIN LATERAL unnest(c.confkey) WITH ORDINALITY AS k(attnum, ord)
JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.attnum
WHERE c.contype = 'f' AND c.connamespace = 'onejob'::regnamespace
GROUP BY c.conname, c.confrelid
ORDER BY c.conname`;

// The columns of a unique index, when it is unique and not partial.
const UNIQUE_INDEX_SQL = `
SELECT array_agg(a.attname::text) AS columns
FROM pg_index i
JOIN pg_class ic ON ic.oid = i.indexrelid
JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
WHERE ic.relname = $1 AND ic.relnamespace = 'onejob'::regnamespace
  AND i.indisunique AND i.indpred IS NULL`;

// The plan a session would keep for `sql`: generic, made now (on this test's empty tables).
const genericPlan = async (name: string, sql: string): Promise<string> => {
  await client().query('SET plan_cache_mode = force_generic_plan');
  await client().query(`PREPARE ${name} AS ${sql}`);
  try {
    const { rows: params } = await client().query<{ n: number }>(
      'SELECT cardinality(parameter_types) AS n FROM pg_prepared_statements WHERE name = $1',
      [name],
    );
    const args = Array.from({ length: params[0]!.n }, () => 'NULL').join(', ');
    const { rows } = await client().query<{ 'QUERY PLAN': string }>(`EXPLAIN EXECUTE ${name} (${args})`);
    return rows.map((r) => r['QUERY PLAN']).join('\n');
  } finally {
    await client().query(`DEALLOCATE ${name}`);
    await client().query('RESET plan_cache_mode');
  }
};

describe('foreign-key checks on a new database', () => {
  it('every foreign-key check is planned on a unique index of the key, reading at most one row', async () => {
    const { rows: keys } = await client().query<ForeignKey>(FOREIGN_KEYS_SQL);
    expect(keys.map((k) => k.name)).toContain('ledger_entries_transfer_fkey');
    for (const [n, key] of keys.entries()) {
      // The query PostgreSQL's referential-integrity code runs for an inserted row.
      const where = key.columns.map((c, i) => `${c} = $${i + 1}`).join(' AND ');
      const plan = await genericPlan(
        `fk_check_${n}`,
        `SELECT 1 FROM ONLY ${key.referenced} x WHERE ${where} FOR KEY SHARE OF x`,
      );
      const index = /Index (?:Only )?Scan using (\S+)/.exec(plan)?.[1];
      expect(index, `${key.name} is checked without an index:\n${plan}`).toBeDefined();
      const { rows: unique } = await client().query<{ columns: string[] | null }>(UNIQUE_INDEX_SQL, [index]);
      const columns = unique[0]?.columns;
      expect(columns, `${key.name} is checked through ${index}, not a unique index:\n${plan}`).toBeTruthy();
      for (const c of columns!) {
        expect(
          key.columns,
          `${key.name} is checked through ${index}, which is unique on other columns`,
        ).toContain(c);
      }
    }
  });
});

describe('periodic counts', () => {
  // Every worker runs it every 10 s: it must cost the size of its answer, not of the table.
  it('the unknown-jobs gauge is counted from an index, never by reading every job', async () => {
    await client().query('BEGIN');
    try {
      await client().query('SET LOCAL enable_seqscan = off');
      const { rows } = await client().query<{ 'QUERY PLAN': string }>(`EXPLAIN ${UNKNOWN_JOBS_SQL}`);
      const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
      expect(plan).not.toContain('Seq Scan');
      expect(plan).toContain('jobs_unknown');
    } finally {
      await client().query('ROLLBACK');
    }
  });
});

// A job's settlement (running to succeeded, failed or cancelled) changes these columns and
// no other. PostgreSQL rewrites the row in place without touching an index (HOT) only when
// no indexed column changes value, a column named in a partial index's WHERE included.
const SETTLED_COLUMNS = ['state', 'version', 'completed_by', 'result', 'error', 'finished_at', 'updated_at'];

// Each index on the tables a job writes costs every attempt an entry. Two partial indexes
// with one WHERE list the same rows twice: one index keyed for both readers serves them.
// One set of rows read in two orders: the queue by age and owner by owner; the public
// events by transaction (opening a window) and by seq (walking it).
const READ_IN_TWO_ORDERS = ['jobs_claimable', 'job_events_public_by_seq'];

describe('the hot tables list each set of rows once', () => {
  it('no two partial indexes of jobs, attempts or job_events share their WHERE', async () => {
    const { rows } = await client().query<{ table: string; name: string; predicate: string }>(
      `SELECT i.indrelid::regclass::text AS table, ic.relname AS name,
              pg_get_expr(i.indpred, i.indrelid) AS predicate
       FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid
       WHERE i.indrelid IN ('onejob.jobs'::regclass, 'onejob.attempts'::regclass, 'onejob.job_events'::regclass)
         AND i.indpred IS NOT NULL`,
    );
    expect(rows.map((r) => r.name)).toContain('attempts_live');
    const seen = new Map<string, string>();
    for (const { table, name, predicate } of rows) {
      if (READ_IN_TWO_ORDERS.includes(name)) continue;
      const other = seen.get(`${table} ${predicate}`);
      expect(other, `${name} lists the rows ${other} lists: WHERE ${predicate}`).toBeUndefined();
      seen.set(`${table} ${predicate}`, name);
    }
  });
});

describe('settling a job writes no index entry', () => {
  it('no index on jobs names a column a settlement changes, in its key or in its WHERE', async () => {
    const { rows } = await client().query<{ name: string; def: string }>(
      `SELECT ic.relname AS name, pg_get_indexdef(i.indexrelid) AS def
       FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid
       WHERE i.indrelid = 'onejob.jobs'::regclass`,
    );
    expect(rows.length).toBeGreaterThan(3);
    for (const { name, def } of rows) {
      const named = SETTLED_COLUMNS.filter((c) =>
        new RegExp(`\\b${c}\\b`).test(def.replace(/^.* USING /, '')),
      );
      expect(named, `${name}: ${def}`).toEqual([]);
    }
  });

  it("archiving walks each owner's oldest jobs on the listing index, never reading jobs whole", async () => {
    const plan = await genericPlan('archive_pick', ARCHIVE_PICK_SQL);
    expect(plan).toMatch(/Index (Only )?Scan (Backward )?using jobs_owner_newest on jobs/);
    expect(plan).not.toMatch(/Seq Scan on jobs/);
  });
});

// The batch statements are named prepared statements: a session plans them once and keeps
// the plan while their tables grow (until ANALYZE). Planned on empty tables, the worst case,
// each must still look rows up by key instead of reading a growing table whole.
describe('batch statements planned on empty tables', () => {
  it('the create batch looks each key up in jobs and tombstones instead of reading either whole', async () => {
    const plan = await genericPlan('create_batch', CREATE_BATCH_SQL);
    expect(plan).not.toMatch(/Seq Scan on jobs/);
    expect(plan).not.toMatch(/Seq Scan on job_tombstones/);
  });

  it("a job is found by its key through the key's unique index, never the owner's listing index", async () => {
    // Intake's statement and the replays' look-up, for one request as for many.
    for (const [name, sql] of [
      ['create_batch', CREATE_BATCH_SQL],
      ['find_by_keys', FIND_BY_KEYS_SQL],
    ] as const) {
      const plan = await genericPlan(name, sql);
      expect(plan, name).toMatch(/Index Scan using jobs_owner_key_unique on jobs/);
      expect(plan, name).not.toMatch(/jobs_owner_newest/);
    }
  });

  it('the read by id probes each (id, owner) on the primary keys of jobs and of the archive', async () => {
    const plan = await genericPlan('find_by_ids', FIND_BY_IDS_SQL);
    expect(plan).toMatch(/Index Scan using jobs_pkey on jobs/);
    expect(plan).toMatch(/Index Scan using jobs_archive_pkey on jobs_archive/);
    expect(plan).not.toMatch(/Seq Scan on (jobs|jobs_archive|attempts)/);
    // The archive is read only for a request no live job answered.
    expect(plan).toMatch(/One-Time Filter: \(\w+\.id IS NULL\)/);
  });

  it("the owner's listing still reads the listing index, newest first", async () => {
    const plan = await genericPlan('list_jobs', LIST_SQL);
    expect(plan).toMatch(/Index Scan using jobs_owner_newest on jobs/);
    // The jobs that fit the page are read in full one by one through the primary key.
    expect(plan).toMatch(/Index Scan using jobs_pkey on jobs/);
    expect(plan).not.toMatch(/Seq Scan on (jobs|attempts)/);
  });

  it("the idle worker's look at the next waiting job reads the first entry of the claimable index", async () => {
    // No parameters: the plan made now, on empty tables, is the one a session keeps.
    const { rows } = await client().query<{ 'QUERY PLAN': string }>(`EXPLAIN ${UNTIL_NEXT_DUE_SQL}`);
    const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
    expect(plan).toMatch(/Limit[\s\S]*Index (Only )?Scan using jobs_claimable on jobs/);
    expect(plan).not.toMatch(/Seq Scan|Sort/);
  });

  it("the claim checks each picked job's live attempts instead of reading every attempt", async () => {
    for (const capped of [true, false]) {
      const plan = await genericPlan(`claim_batch_${capped}`, claimBatchSql(capped));
      expect(plan).not.toMatch(/Seq Scan on attempts/);
    }
  });
});

describe('statements planned for each batch', () => {
  it('the completion batch is planned afresh for every batch, never kept by the session', async () => {
    // An attempt that does not exist wins nothing, but the statement runs all the same.
    const won = await completeWinners(client(), [
      {
        attempt: {
          id: '01900000-0000-7000-8000-000000000001',
          job_id: '01900000-0000-7000-8000-000000000002',
          n: 1,
          provider: 'p',
          job_version: 0,
        },
        result: { ok: true },
        traceparent: null,
      },
    ]);
    expect(won.size).toBe(0);
    const { rows } = await client().query<{ n: number }>(
      'SELECT count(*)::int AS n FROM pg_prepared_statements WHERE statement = $1',
      [WIN_MANY_SQL],
    );
    expect(rows[0]!.n).toBe(0);
  });
});

/** Tables as a worker finds them mid-drain: 20,000 jobs (half done, half queued, a few running), never analysed. */
async function fillTables(c: Pick<pg.Client, 'query'>): Promise<void> {
  await c.query("INSERT INTO onejob.outbox_publishers (name, kind) VALUES ('p', 'log')");
  // Half the jobs done (each with its attempt, audit and published event), half queued,
  // and a few running with a live attempt under a lease.
  await c.query(`
      INSERT INTO onejob.jobs (id, owner_id, idempotency_key, fingerprint, operation, input, state,
                               completed_by, attempt_count, run_after, created_at, finished_at)
      SELECT ('00000000-0000-7000-8000-' || lpad(to_hex(g), 12, '0'))::uuid, 'o', 'k' || g, 'f', 'noop', '{}',
             CASE WHEN g % 2 = 0 THEN 'succeeded' WHEN g % 101 = 1 THEN 'running' ELSE 'queued' END,
             CASE WHEN g % 2 = 0 THEN ('00000000-0000-7000-9000-' || lpad(to_hex(g), 12, '0'))::uuid END,
             CASE WHEN g % 2 = 0 OR g % 101 = 1 THEN 1 ELSE 0 END,
             now() - interval '1 hour', now() - interval '1 hour', CASE WHEN g % 2 = 0 THEN now() END
      FROM generate_series(1, ${FILL_ROWS}) g`);
  await c.query(`
      INSERT INTO onejob.attempts (id, job_id, owner_id, n, provider, exclusive, state, job_version, lease_owner,
                                   lease_expires_at, deadline_at, finished_at)
      SELECT ('00000000-0000-7000-9000-' || lpad(to_hex(g), 12, '0'))::uuid,
             ('00000000-0000-7000-8000-' || lpad(to_hex(g), 12, '0'))::uuid, 'o', 1, 'p', true,
             CASE WHEN g % 2 = 0 THEN 'succeeded' ELSE 'running' END, 1, 'w',
             CASE WHEN g % 2 = 1 THEN now() + interval '1 minute' END, now() + interval '1 minute',
             CASE WHEN g % 2 = 0 THEN now() END
      FROM generate_series(1, ${FILL_ROWS}) g WHERE g % 2 = 0 OR g % 101 = 1`);
  await c.query(`
      INSERT INTO onejob.job_events (id, job_id, owner_id, type, publish, event)
      SELECT gen_random_uuid(), ('00000000-0000-7000-8000-' || lpad(to_hex(g), 12, '0'))::uuid, 'o', 'created',
             'onejob.job.created', '{}'
      FROM generate_series(1, ${FILL_ROWS}) g`);
  // The publisher's position past all but the last events; every 50th event refused once.
  await c.query(`
      INSERT INTO onejob.outbox_retries (event_id, owner_id, publisher, seq, subject, created_at, attempts)
      SELECT id, owner_id, 'p', seq, job_id::text, created_at, 1 FROM onejob.job_events WHERE seq % 50 = 0`);
  await c.query('UPDATE onejob.outbox_publishers SET done = pg_current_snapshot()');
  await c.query(`
      INSERT INTO onejob.job_events (id, job_id, owner_id, type, publish, event)
      SELECT gen_random_uuid(), ('00000000-0000-7000-8000-' || lpad(to_hex(g), 12, '0'))::uuid, 'o', 'succeeded',
             'onejob.job.succeeded', '{}'
      FROM generate_series(1, 200) g`);
}
const FILL_ROWS = 20_000;

/** The claim's pick (the CTE `picked`): an ordered walk of the claimable index, no bitmap, no sort. */
/** The plan of one CTE: from its node to the next CTE's (a CTE read once is inlined and has none). */
function ctePlan(plan: string, name: string): string {
  const start = plan.indexOf(`CTE ${name}\n`);
  const next = plan.slice(start + 1).search(/^\s*CTE \w+$/m);
  return plan.slice(start, next < 0 ? undefined : start + 1 + next);
}

function expectPickWalksIndex(plan: string, sql = ''): void {
  const pick = ctePlan(plan, 'picked');
  expect(pick, `${sql}\n${plan}`).toMatch(/Index Scan using jobs_claimable_by_owner on jobs/);
  // Never the queue in run_after order, where another owner's whole backlog may come first.
  expect(plan.slice(0, plan.indexOf('CTE picked') + pick.length), `${sql}\n${plan}`).not.toMatch(
    /using jobs_claimable on/,
  );
  expect(pick, `${sql}\n${plan}`).not.toMatch(/Bitmap Heap Scan on jobs|Sort/);
  expectOwnersSkipScan(plan, sql);
  // The chosen jobs are moved to running by probes of the primary key, never a join that
  // reads the owner's jobs (a plan made with statistics chose that, and read them all).
  const moved = ctePlan(plan, 'moved');
  expect(moved, `${sql}\n${plan}`).toMatch(
    /Index Scan (using|on) jobs_pkey[^\n]*\n\s+Index Cond: \(id = ANY/,
  );
  expect(moved, `${sql}\n${plan}`).not.toMatch(/Hash|Seq Scan|jobs_owner/);
}
/**
 * The owners' round (the CTE `owners`): each step one probe of the owners index for the
 * next owner with queued jobs, never a read of the queue, so the claim costs the same with
 * one owner's backlog or a thousand owners.
 */
function expectOwnersSkipScan(plan: string, sql = ''): void {
  const walk = ctePlan(plan, 'owners');
  expect(walk, `${sql}\n${plan}`).toMatch(/Recursive Union/);
  expect(walk, `${sql}\n${plan}`).toMatch(/Index Only Scan using jobs_claimable_by_owner on jobs/);
  expect(walk, `${sql}\n${plan}`).not.toMatch(/Seq Scan|Bitmap Heap Scan|Sort|Aggregate/);
}
const GROWING = ['jobs', 'attempts', 'job_events', 'outbox_retries'];

// A worker started on a queue filled faster than autovacuum analyses it plans every
// statement without statistics, and keeps the plans of its named statements. Each statement
// of the worker's path (claim, attempt start, lease renewal, completion, failure and
// settlement, audit and outbox rows, the unknown-jobs gauge, the relay's claim and its
// acknowledgement) is sent here as the worker sends it, on tables of 20,000 rows that were
// never analysed, and its plan must read rows by key or in index order: never a whole
// growing table, never the whole backlog sorted.
describe('the worker path planned on a freshly filled queue, without statistics', () => {
  let cold: TestDatabase;
  let c: pg.Client;
  beforeAll(async () => {
    cold = await createTestDatabase();
    c = new pg.Client({ connectionString: cold.url });
    await c.connect();
    for (const t of GROWING) await c.query(`ALTER TABLE onejob.${t} SET (autovacuum_enabled = false)`);
    await fillTables(c);
  }, 120_000);
  afterAll(async () => {
    await c?.end();
    await cold?.drop();
  });

  interface Sent {
    name?: string;
    text: string;
    values: unknown[];
  }

  /** A client that remembers each statement sent through it, inside a transaction rolled back after. */
  const recorded = async (fn: (db: pg.Client) => Promise<unknown>): Promise<Sent[]> => {
    const sent: Sent[] = [];
    const recorder = new Proxy(c, {
      get(target, prop) {
        if (prop !== 'query') return Reflect.get(target, prop);
        return (q: string | { name?: string; text: string; values?: unknown[] }, values?: unknown[]) => {
          const s =
            typeof q === 'string' ? { text: q, values: values ?? [] } : { ...q, values: q.values ?? [] };
          sent.push(s);
          return target.query(q as never, values as never);
        };
      },
    });
    await c.query('BEGIN');
    try {
      await fn(recorder);
    } finally {
      await c.query('ROLLBACK');
    }
    return sent.filter((s) => !/^\s*(SAVEPOINT|RELEASE|ROLLBACK)/i.test(s.text));
  };

  /** The plans PostgreSQL makes for what was sent: generic as well for a named statement, which a session keeps. */
  const plansOf = async (sent: Sent[]): Promise<{ sql: string; plan: string }[]> => {
    const plans: { sql: string; plan: string }[] = [];
    await c.query('BEGIN');
    try {
      for (const [i, sentOne] of sent.entries()) {
        // Planner settings, alone or sent in one simple query ahead of the statement they are for.
        const settings = /^(?:\s*SET LOCAL[^;]*(?:;|$))+/i.exec(sentOne.text)?.[0];
        if (settings) await c.query(settings);
        const s = settings ? { ...sentOne, text: sentOne.text.slice(settings.length) } : sentOne;
        if (!s.text.trim()) continue;
        const { rows } = await c.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${s.text}`, s.values);
        plans.push({ sql: s.text, plan: rows.map((r) => r['QUERY PLAN']).join('\n') });
        if (s.name) {
          await c.query('SET LOCAL plan_cache_mode = force_generic_plan');
          await c.query(`PREPARE kept_${i} AS ${s.text}`);
          const args = s.values.map(() => 'NULL').join(', ');
          const generic = await c.query<{ 'QUERY PLAN': string }>(`EXPLAIN EXECUTE kept_${i} (${args})`);
          plans.push({ sql: `${s.name} (kept)`, plan: generic.rows.map((r) => r['QUERY PLAN']).join('\n') });
          await c.query(`DEALLOCATE kept_${i}`);
          await c.query('SET LOCAL plan_cache_mode = auto');
        }
      }
    } finally {
      await c.query('ROLLBACK');
    }
    return plans;
  };

  const expectNoWholeTable = (plans: { sql: string; plan: string }[]) => {
    expect(plans.length).toBeGreaterThan(0);
    for (const { sql, plan } of plans) {
      for (const t of GROWING) {
        expect(plan, `${sql}\n${plan}`).not.toMatch(new RegExp(`Seq Scan on ${t}\\b`));
      }
    }
  };

  const operations = new OperationRegistry({
    config: {
      operations: { noop: { kind: 'http', providers: ['p'], effect: 'exclusive', maxAttempts: 3 } },
    } as never,
    inputChecks: new Map(),
  });
  const noop = operations.get('noop')!;
  const running = (g: number) => `00000000-0000-7000-9000-${g.toString(16).padStart(12, '0')}`;

  it('the claim walks the queue in index order and stops after the free slots, never sorting the backlog', async () => {
    const sent = await recorded((db) =>
      claimQueuedJobs({ db, keptPlans: false }, operations, {
        id: 'w',
        leaseMs: 10_000,
        limit: 24,
        rotation: async () => ['p'],
      }),
    );
    const plans = await plansOf(sent);
    expectNoWholeTable(plans);
    for (const { sql, plan } of plans.filter((p) => /picked|onejob-claim-batch/.test(p.sql))) {
      // The pick (the CTE `picked`): an ordered walk of the claimable index, no bitmap, no sort.
      expectPickWalksIndex(plan, sql);
      // Compiling a plan costed that high takes seconds: a claim is never JIT-compiled.
      expect(plan, `${sql}\n${plan}`).not.toMatch(/JIT:/);
    }
  });

  it("the claim of attempts started through the API probes each one's job", async () => {
    expectNoWholeTable(
      await plansOf(
        await recorded((db) => claimUnownedAttempt(db, { id: 'w', leaseMs: 1000, operations: ['noop'] })),
      ),
    );
  });

  it('lease renewal, attempt start and the expired-lease sweep read attempts by key or by lease', async () => {
    const sent = await recorded(async (db) => {
      await renewLeases(db, [running(1), running(103)], 'w', 10_000);
      await markRunning(db, running(1), 'w', 1000, 1000);
      await releaseLease(db, running(1), 'w');
      await findExpiredLeases(db);
      await claimUnknownAttempt(db, 'w', 1000);
    });
    expectNoWholeTable(await plansOf(sent));
  });

  it("the lapsed-lease sweep and an owner's share of the slots read the one list of live attempts", async () => {
    const sweep = await plansOf(await recorded((db) => findExpiredLeases(db)));
    expectNoWholeTable(sweep);
    for (const { sql, plan } of sweep) {
      expect(plan, `${sql}\n${plan}`).toMatch(
        /(Index (Only )?Scan using|Bitmap Index Scan on) attempts_live\b/,
      );
    }
    const claim = await plansOf(
      await recorded((db) =>
        claimQueuedJobs({ db, keptPlans: false }, operations, {
          id: 'w',
          leaseMs: 10_000,
          limit: 24,
          rotation: async () => ['p'],
          limits: { perOwner: 4, providers: {} },
        }),
      ),
    );
    expectNoWholeTable(claim);
    const picks = claim.filter((p) => /picked|onejob-claim-batch/.test(p.sql));
    expect(picks.length).toBeGreaterThan(0);
    for (const { sql, plan } of picks) {
      // Each owner's live attempts: a range of the index by owner, at most the cap of them.
      expect(ctePlan(plan, 'shares'), `${sql}\n${plan}`).toMatch(
        /Index (Only )?Scan using attempts_live on attempts[^\n]*\n\s+Index Cond: \(owner_id = /,
      );
    }
  });

  it('the completion batch looks each attempt and job up by key, for a few results and for a full worker', async () => {
    const few = [1, 103, 204];
    // As many as a worker at concurrency 24 offers at once: a hash join reading every
    // attempt once per batch looks cheaper to a planner without statistics than 24 probes.
    const full = Array.from({ length: 24 }, (_, i) => 1 + 101 * i);
    for (const batch of [few, full]) {
      const offered = batch.map((g) => ({
        attempt: {
          id: running(g),
          job_id: running(g).replace('-9000-', '-8000-'),
          n: 1,
          provider: 'p',
          job_version: 1,
        },
        result: { ok: true },
        traceparent: null,
      }));
      expectNoWholeTable(await plansOf(await recorded((db) => completeWinners(db, offered))));
      // The same batch claiming the next jobs in its statement, as a busy worker sends it.
      const worker = { id: 'w', leaseMs: 10_000, limit: batch.length, rotation: async () => ['p'] };
      const sent = await recorded((db) =>
        completeAndClaim({ db, keptPlans: false }, operations, offered, worker),
      );
      const plans = await plansOf(sent);
      expectNoWholeTable(plans);
      for (const { plan } of plans) {
        expectPickWalksIndex(plan);
      }
    }
  });

  // The worker's kept-plan connections plan the claim and the completion batch once, on
  // the tables as they are at the worker's first batch, and keep those plans. The worst
  // case is a new install: empty tables, then a bulk enqueue that no ANALYZE follows.
  it('on kept-plan connections, the claim and the completion planned on empty tables still walk indexes at 20,000 rows', async () => {
    const fresh = await createTestDatabase();
    // One connection, so the statements planned below are the ones explained after.
    const pool = createKeptPlanPool({ connectionString: fresh.url, max: 1 });
    try {
      const session = await pool.connect();
      try {
        const { rows: settings } = await session.query<{ name: string; setting: string }>(
          'SELECT name, setting FROM pg_settings WHERE name = ANY($1::text[])',
          [Object.keys(KEPT_PLAN_SETTINGS)],
        );
        expect(Object.fromEntries(settings.map((r) => [r.name, r.setting]))).toEqual(KEPT_PLAN_SETTINGS);
        for (const t of GROWING)
          await session.query(`ALTER TABLE onejob.${t} SET (autovacuum_enabled = false)`);
        // The worker's first claim and completion, on empty tables: each is planned now and kept.
        const target = { db: session, keptPlans: true };
        const worker = { id: 'w', leaseMs: 10_000, limit: 24, rotation: async () => ['p'] };
        expect(await claimQueuedJobs(target, operations, worker)).toEqual([]);
        const nobody = { id: running(1), job_id: running(1), n: 1, provider: 'p', job_version: 0 };
        const none = await completeWinners(session, [{ attempt: nobody, result: {}, traceparent: null }], {
          keptPlans: true,
        });
        expect(none.size).toBe(0);
        const both = await completeAndClaim(
          target,
          operations,
          [{ attempt: nobody, result: {}, traceparent: null }],
          worker,
        );
        expect(both).toEqual({ winners: new Map(), claimed: [] });
        await fillTables(session);
        const { rows: kept } = await session.query<{ name: string; n: number; generic: number }>(
          `SELECT name, cardinality(parameter_types) AS n, generic_plans::int AS generic
           FROM pg_prepared_statements
           WHERE name LIKE 'onejob-%' ORDER BY name`,
        );
        // No provider of this worker is capped: the claims without provider slots.
        expect(kept.map((k) => [k.name, k.generic])).toEqual([
          ['onejob-claim-batch-uncapped', 1],
          ['onejob-complete-and-claim-uncapped', 1],
          ['onejob-win-many', 1],
        ]);
        const plans: { sql: string; plan: string }[] = [];
        for (const k of kept) {
          const args = Array.from({ length: k.n }, () => 'NULL').join(', ');
          const { rows } = await session.query<{ 'QUERY PLAN': string }>(
            `EXPLAIN EXECUTE "${k.name}" (${args})`,
          );
          plans.push({ sql: k.name, plan: rows.map((r) => r['QUERY PLAN']).join('\n') });
        }
        expectNoWholeTable(plans);
        for (const claim of [plans[0]!.plan, plans[1]!.plan]) {
          expectPickWalksIndex(claim);
        }
        for (const { plan } of plans) expect(plan).not.toMatch(/JIT:/);
        // A worker that starts on the full queue, never analysed, plans it there instead.
        const later = createKeptPlanPool({ connectionString: fresh.url, max: 1 });
        const second = await later.connect();
        try {
          await second.query('BEGIN');
          await claimQueuedJobs({ db: second, keptPlans: true }, operations, worker);
          const { rows } = await second.query<{ 'QUERY PLAN': string }>(
            `EXPLAIN EXECUTE "onejob-claim-batch-uncapped" (${CLAIM_PARAMS.map(() => 'NULL').join(', ')})`,
          );
          const full = rows.map((r) => r['QUERY PLAN']).join('\n');
          expectPickWalksIndex(full);
        } finally {
          await second.query('ROLLBACK');
          second.release();
          await later.end();
        }
      } finally {
        session.release();
      }
    } finally {
      await pool.end();
      await fresh.drop();
    }
  });

  it('a lost race, a failure with its settlement, an unknown outcome, and their audit and outbox rows read by key', async () => {
    const sent = await recorded(async (db) => {
      await completeAttempt(db, running(2), { result: { late: true } });
      await failAttempt(db, operations, running(103), { error: { code: 'http_400', message: 'refused' } });
      await markUnknown(db, operations, running(204), { code: 'timeout', message: 'timed out' });
      await recordJobEvent(db, {
        jobId: running(1).replace('-9000-', '-8000-'),
        type: 'x',
        publish: 'onejob.job.x',
      });
    });
    expectNoWholeTable(await plansOf(sent));
    expect(noop.maxAttempts).toBe(3);
  });

  it('the unknown-jobs gauge counts from its index', async () => {
    const plans = await plansOf([{ text: UNKNOWN_JOBS_SQL, values: [] }]);
    expectNoWholeTable(plans);
  });

  it("the relay's log pass reads the events ahead of its position by xid, its retry pass pending rows by key", async () => {
    const sent = await recorded(async (db) => {
      const ahead = await claimFromPosition(db as never, 'p', 100);
      expect(ahead?.events).toHaveLength(100);
      const batch = await claimOutboxBatch(db as never, 'p', 100);
      await markPublished(
        db,
        'p',
        batch.flat().map((d) => d.id),
      );
    });
    expectNoWholeTable(await plansOf(sent));
  });

  it("a pass inside an open window reads a span of a few batches from the window's start, never the rest of the window", async () => {
    const { rows: seqs } = await c.query<{ from: string }>(
      'SELECT (min(seq) + 99)::text AS from FROM onejob.job_events',
    );
    const from = BigInt(seqs[0]!.from);
    const sent = await recorded(async (db) => {
      // A window over the whole log (20,200 events), its first 100 behind (set on the same
      // session, not recorded).
      await c.query(
        `UPDATE onejob.outbox_publishers SET done = '1:1:', window_end = pg_current_snapshot(),
           window_seq = $1, window_last = (SELECT max(seq) FROM onejob.job_events) WHERE name = 'p'`,
        [from.toString()],
      );
      const next = await claimFromPosition(db as never, 'p', 50);
      expect(next?.events).toHaveLength(50);
      expect(next?.position.span).toBeNull();
    });
    const plans = await plansOf(sent);
    expectNoWholeTable(plans);
    const window = plans.find((p) => p.sql.includes('e.seq <= $6'));
    expect(window?.plan, window?.sql).toMatch(/job_events_public_by_seq/);
    expect(window?.plan, window?.sql).not.toMatch(/job_events_public_by_xid/);
    // Eight batches of seqs at most, whatever the window's length.
    expect(window?.plan, window?.sql).toContain(`(seq <= '${from + 400n}'::bigint)`);
  });
});

// With statistics the planner knows owner o holds half the queue and may read it in
// run_after order (jobs_claimable) to find another owner's first job: behind o's whole
// backlog. The claim names each owner as a range in its order, which only the owners index
// gives without a sort.
describe('the claim planned with statistics', () => {
  it("another owner's jobs are read from its own index range, never behind a large owner's backlog", async () => {
    const warm = await createTestDatabase();
    const w = new pg.Client({ connectionString: warm.url });
    await w.connect();
    try {
      await fillTables(w);
      await w.query(
        `INSERT INTO onejob.jobs (id, owner_id, idempotency_key, fingerprint, operation, input)
         VALUES (gen_random_uuid(), 'p', 'p-1', 'f', 'noop', '{}')`,
      );
      await w.query('ANALYZE');
      const operations = new OperationRegistry({
        config: { operations: { noop: { kind: 'http', providers: ['p'] } } } as never,
        inputChecks: new Map(),
      });
      const worker = { id: 'w', leaseMs: 10_000, limit: 24, rotation: async () => ['p'] };
      for (const [after, capped] of [
        ['', true],
        ['o', true],
        ['', false],
      ] as const) {
        const values = CLAIM_SQL_PARAMS.values(
          await claimValues(operations, { ...worker, turns: { after, more: false } }),
        );
        await w.query('BEGIN');
        try {
          await w.query(CLAIM_PLANNER_SQL);
          const { rows } = await w.query<{ 'QUERY PLAN': string }>(
            `EXPLAIN ${withLiterals(claimBatchSql(capped), values)}`,
          );
          expectPickWalksIndex(
            rows.map((r) => r['QUERY PLAN']).join('\n'),
            `after ${after}, capped ${capped}`,
          );
        } finally {
          await w.query('ROLLBACK');
        }
      }
    } finally {
      await w.end();
      await warm.drop();
    }
  }, 120_000);
});
