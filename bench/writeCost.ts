// What a workload writes to one database: rows (inserted, updated, deleted, from
// pg_stat_user_tables) and WAL bytes. The WAL is read back record by record with
// pg_walinspect and only records of this database count (a block of one of its relations,
// or the commit of a transaction that wrote one), so other databases on the same server do
// not inflate the figure; full-page images after a checkpoint do count, as they would in
// production. The counting session holds a temporary replication slot, so the WAL between
// the readings is kept until it has been read.
import pg from 'pg';
import { until } from '../test/helpers/until.js';

export interface WriteCounters {
  lsn: string;
  rows: Record<string, number>;
}

export interface WriteCost {
  /** Rows written (inserted + updated + deleted) per unit, by table and in total. */
  rowsPerJob: number;
  walBytesPerJob: number;
  /** Of walBytesPerJob, the full-page images (a page's first change after a checkpoint). */
  fullPageBytesPerJob: number;
  rowsByTable: Record<string, number>;
  /** WAL bytes per job by relation (tables and indexes), largest first; `other` is commits and the rest. */
  walByRelation: Record<string, number>;
}

const ROWS_SQL = `
SELECT schemaname || '.' || relname AS name, (n_tup_ins + n_tup_upd + n_tup_del)::int8 AS n
FROM pg_stat_user_tables`;

const WAL_SQL = `
WITH r AS (
  SELECT xid, record_length, fpi_length, block_ref FROM pg_get_wal_records_info($1::pg_lsn, $2::pg_lsn)
),
ours AS (
  SELECT DISTINCT xid FROM r WHERE block_ref LIKE $3 AND xid <> '0'::xid
)
SELECT coalesce(substring(block_ref FROM 'rel \\d+/\\d+/(\\d+)'), 'other') AS node,
       sum(record_length)::int8 AS bytes, sum(fpi_length)::int8 AS fpi
FROM r
WHERE block_ref LIKE $3 OR (xid <> '0'::xid AND xid IN (SELECT xid FROM ours))
GROUP BY 1`;

const RELATIONS_SQL = `SELECT relfilenode::text AS node, relname AS name FROM pg_class WHERE relfilenode <> 0`;

/** Opens a counter connection to `url` (a superuser: pg_walinspect needs it). */
export async function writeCounter(url: string) {
  const client = new pg.Client({ connectionString: url, application_name: 'onejob-bench-cost' });
  await client.connect();
  await client.query('CREATE EXTENSION IF NOT EXISTS pg_walinspect');
  const { rows: db } = await client.query<{ oid: string }>(
    'SELECT oid::text FROM pg_database WHERE datname = current_database()',
  );
  const oid = db[0]!.oid;
  // A temporary slot keeps the server from recycling the WAL between the two readings
  // (other databases may write gigabytes meanwhile); it goes with this session.
  await client.query(
    "SELECT pg_create_physical_replication_slot('onejob_bench_cost_' || pg_backend_pid(), true, true)",
  );
  const read = async (): Promise<WriteCounters> => {
    // Statistics of backends that ended are flushed; this session's snapshot is dropped.
    await client.query('SELECT pg_stat_clear_snapshot()');
    const { rows } = await client.query<{ name: string; n: string }>(ROWS_SQL);
    const { rows: lsn } = await client.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');
    // WAL can be inserted ahead of its flush (a commit that does not wait for it), and
    // pg_walinspect reads only flushed WAL: wait until the flush reaches this reading.
    await until(
      'the WAL to be flushed',
      async () =>
        (
          await client.query<{ flushed: boolean }>(
            'SELECT pg_current_wal_flush_lsn() >= $1::pg_lsn AS flushed',
            [lsn[0]!.lsn],
          )
        ).rows[0]!.flushed,
      10_000,
      { everyMs: 10 },
    );
    return { lsn: lsn[0]!.lsn, rows: Object.fromEntries(rows.map((r) => [r.name, Number(r.n)])) };
  };
  return {
    client,
    read,
    /** Rows and WAL bytes between two readings, per job of `jobs`. */
    async cost(before: WriteCounters, after: WriteCounters, jobs: number): Promise<WriteCost> {
      const { rows } = await client.query<{ node: string; bytes: string; fpi: string }>(WAL_SQL, [
        before.lsn,
        after.lsn,
        `%rel %/${oid}/%`,
      ]);
      const { rows: relations } = await client.query<{ node: string; name: string }>(RELATIONS_SQL);
      const names = new Map(relations.map((r) => [r.node, r.name]));
      let walBytes = 0;
      let fullPageBytes = 0;
      const walByRelation: Record<string, number> = {};
      for (const r of rows.sort((a, b) => Number(b.bytes) - Number(a.bytes))) {
        walBytes += Number(r.bytes);
        fullPageBytes += Number(r.fpi);
        const name = names.get(r.node) ?? r.node;
        walByRelation[name] = (walByRelation[name] ?? 0) + Math.round(Number(r.bytes) / jobs);
      }
      const rowsByTable: Record<string, number> = {};
      let total = 0;
      for (const [name, n] of Object.entries(after.rows)) {
        const d = n - (before.rows[name] ?? 0);
        if (d === 0) continue;
        rowsByTable[name] = Math.round((d / jobs) * 100) / 100;
        total += d;
      }
      return {
        rowsPerJob: Math.round((total / jobs) * 100) / 100,
        walBytesPerJob: Math.round(walBytes / jobs),
        fullPageBytesPerJob: Math.round(fullPageBytes / jobs),
        rowsByTable,
        walByRelation,
      };
    },
    end: () => client.end(),
  };
}
