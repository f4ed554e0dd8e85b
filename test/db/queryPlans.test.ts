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
import { CLAIM_BATCH_SQL } from '../../src/attempts/claimJobs.js';
import { completeWinners, WIN_MANY_SQL } from '../../src/attempts/completeWinners.js';
import { UNKNOWN_JOBS_SQL } from '../../src/attempts/workerHousekeeping.js';
import { CREATE_BATCH_SQL } from '../../src/jobs/createJobsBatch.js';
import { LIST_SQL } from '../../src/jobs/listJobs.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';

let db: TestDatabase;
let client: pg.Client;
beforeAll(async () => {
  db = await createTestDatabase();
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
});
afterAll(async () => {
  await client?.end();
  await db?.drop();
});

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
  await client.query('SET plan_cache_mode = force_generic_plan');
  await client.query(`PREPARE ${name} AS ${sql}`);
  try {
    const { rows: params } = await client.query<{ n: number }>(
      'SELECT cardinality(parameter_types) AS n FROM pg_prepared_statements WHERE name = $1',
      [name],
    );
    const args = Array.from({ length: params[0]!.n }, () => 'NULL').join(', ');
    const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN EXECUTE ${name} (${args})`);
    return rows.map((r) => r['QUERY PLAN']).join('\n');
  } finally {
    await client.query(`DEALLOCATE ${name}`);
    await client.query('RESET plan_cache_mode');
  }
};

describe('foreign-key checks on a new database', () => {
  it('every foreign-key check is planned on a unique index of the key, reading at most one row', async () => {
    const { rows: keys } = await client.query<ForeignKey>(FOREIGN_KEYS_SQL);
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
      const { rows: unique } = await client.query<{ columns: string[] | null }>(UNIQUE_INDEX_SQL, [index]);
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
    await client.query('BEGIN');
    try {
      await client.query('SET LOCAL enable_seqscan = off');
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${UNKNOWN_JOBS_SQL}`);
      const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
      expect(plan).not.toContain('Seq Scan');
      expect(plan).toContain('jobs_unknown');
    } finally {
      await client.query('ROLLBACK');
    }
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
    // Intake's only statement, for one request as for many.
    for (const [name, sql] of [['create_batch', CREATE_BATCH_SQL]] as const) {
      const plan = await genericPlan(name, sql);
      expect(plan, name).toMatch(/Index Scan using jobs_owner_key_unique on jobs/);
      expect(plan, name).not.toMatch(/jobs_owner_newest/);
    }
  });

  it("the owner's listing still reads the listing index, newest first", async () => {
    const plan = await genericPlan('list_jobs', LIST_SQL);
    expect(plan).toMatch(/Index Scan using jobs_owner_newest on jobs/);
    // The jobs that fit the page are read in full one by one through the primary key.
    expect(plan).toMatch(/Index Scan using jobs_pkey on jobs/);
    expect(plan).not.toMatch(/Seq Scan on (jobs|attempts)/);
  });

  it("the claim checks each picked job's live attempts instead of reading every attempt", async () => {
    const plan = await genericPlan('claim_batch', CLAIM_BATCH_SQL);
    expect(plan).not.toMatch(/Seq Scan on attempts/);
  });
});

describe('statements planned for each batch', () => {
  it('the completion batch is planned afresh for every batch, never kept by the session', async () => {
    // An attempt that does not exist wins nothing, but the statement runs all the same.
    const won = await completeWinners(client, [
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
    const { rows } = await client.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM pg_prepared_statements WHERE statement = $1',
      [WIN_MANY_SQL],
    );
    expect(rows[0]!.n).toBe(0);
  });
});
