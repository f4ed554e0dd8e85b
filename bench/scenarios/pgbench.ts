// Our raw limit, measured in the same run by pgbench rather than a Node loop: the
// statements onejob sends, as a script of prepared statements (-M prepared), so no Node
// client (ours or pg's) is part of the reference. The script sends the statement text
// onejob sends; the values onejob computes in Node (ids, key, traceparent, event JSON) are
// computed by the statement from pgbench variables, since pgbench has no uuids or strings.
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { CREATE_BATCH_SQL } from '../../src/jobs/createJobsBatch.js';
import { fingerprint } from '../../src/jobs/fingerprint.js';
import { JOB_COLUMNS } from '../../src/jobs/jobView.js';
import { round, summariseLatencies } from '../latencyStats.js';
import type { LoadResult, LoadWindow } from '../measureLoad.js';
import { BENCH_OWNER } from '../serverProcess.js';

export const PGBENCH = process.env.BENCH_PGBENCH ?? '/usr/bin/pgbench';

export interface PgbenchRun extends LoadWindow {
  url: string;
}

const INPUT = JSON.stringify({ amount: 1, note: 'bench' });
const PRINT = fingerprint({ operation: 'noop', input: JSON.parse(INPUT) });
const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;
// What createJob sends as $9 and $10, with placeholder ids: same shape and size.
const DATA = JSON.stringify({
  jobId: '00000000-0000-7000-8000-000000000000',
  operation: 'noop',
  idempotencyKey: 'pgb-00-000000000000000',
  state: 'queued',
  version: 1,
});
const EVENT = JSON.stringify({
  specversion: '1.0',
  id: '00000000-0000-7000-8000-000000000000',
  source: 'onejob',
  type: 'onejob.job.created',
  subject: '00000000-0000-7000-8000-000000000000',
  time: '2026-01-01T00:00:00.000Z',
  datacontenttype: 'application/json',
  data: JSON.parse(DATA),
  traceparent: '00-00000000000000000000000000000000-0000000000000000-01',
});

/** A time-ordered uuid like uuidv7 (the index sees ordered inserts, as it does from onejob). */
const uuid7 = (seed: string) =>
  `(lpad(to_hex((extract(epoch FROM clock_timestamp()) * 1000)::bigint), 12, '0') || '7' || substr(md5(${seed}), 1, 19))::uuid`;
const traceparent = (seed: string) =>
  `('00-' || md5(${seed}) || '-' || substr(md5('s' || ${seed}), 1, 16) || '-01')`;

/**
 * `sql` with each `$n` replaced by `values[n - 1]`. pgbench takes every `:name`, even inside
 * a string literal (the to_char format, the JSON), for one of its variables; such a literal
 * is rewritten to the same constant with its colons spelled chr(58).
 */
const bind = (sql: string, values: string[]) =>
  sql
    .replace(/\$(\d+)/g, (_, n: string) => values[Number(n) - 1]!)
    .replace(/'(?:[^']|'')*'/g, (literal) =>
      /:\w/.test(literal) ? `(${literal.split(':').join("' || chr(58) || '")})` : literal,
    );

const seed = `(:client_id::text || '-' || :k::text)`;

// `rows` jobs per transaction: the batch statement of group commit, its JSON array of
// requests built by the statement itself.
const batchScript = (rows: number) => {
  const rowSeed = `(${seed} || '-' || g::text)`;
  const requests = `(SELECT json_agg(json_build_object(
    'ord', g, 'id', ${uuid7(`'j' || ${rowSeed}`)}, 'owner_id', ${lit(BENCH_OWNER)},
    'idempotency_key', 'pgbb-' || ${rowSeed}, 'fingerprint', ${lit(PRINT)}, 'operation', ${lit('noop')},
    'input', ${lit(INPUT)}::json, 'traceparent', ${traceparent(rowSeed)},
    'event_id', md5('e' || ${rowSeed})::uuid, 'data', ${lit(DATA)}::json, 'event', ${lit(EVENT)}::json)
    ORDER BY g) FROM generate_series(1, ${rows}) g)`;
  return `\\set k random(1, 1000000000000000)
${bind(CREATE_BATCH_SQL, [requests])};
`;
};

const lookupScript = (keyPrefix: string, keyCount: number) => `\\set n random(0, ${keyCount - 1})
SELECT ${JOB_COLUMNS} FROM onejob.jobs WHERE owner_id = ${lit(BENCH_OWNER)} AND idempotency_key = ${lit(keyPrefix)} || :n::text;
`;

/** (f) createJob's statement, one job per transaction. */
// One job per transaction: the statement createJob sends for a request alone, a batch of one.
export const pgbenchCreate = (r: PgbenchRun) => pgbench(r, 'pgbench create', batchScript(1), 1);

/** (f) The group-commit statement with `rows` jobs per transaction; throughput counts jobs. */
export const pgbenchCreateBatch = (r: PgbenchRun, rows: number) =>
  pgbench(r, `pgbench create batch of ${rows}`, batchScript(rows), rows);

/** (f) The duplicate lookup by (owner, key) alone: what a replay cannot go below. */
export const pgbenchLookup = (r: PgbenchRun, keyPrefix: string, keyCount: number) =>
  pgbench(r, 'pgbench lookup', lookupScript(keyPrefix, keyCount), 1);

function exec(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(PGBENCH, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

async function pgbench(r: PgbenchRun, label: string, script: string, rowsPerTx: number): Promise<LoadResult> {
  const dir = await mkdtemp(join(os.tmpdir(), 'onejob-pgbench-'));
  try {
    const file = join(dir, 'script.sql');
    await writeFile(file, script);
    const clients = Math.max(1, r.concurrency);
    const base = [
      '-n',
      '-M',
      'prepared',
      '-c',
      String(clients),
      '-j',
      String(Math.min(2, clients)),
      '-f',
      file,
    ];
    // pgbench counts whole seconds: a warm-up under a second is skipped.
    const warmup = Math.floor(r.warmupMs / 1000);
    if (warmup > 0) {
      r.progress.update(`${label}: warm-up ${warmup} s`);
      const w = await exec([...base, '-T', String(warmup), r.url]);
      if (w.code !== 0) throw new Error(`${label} (warm-up): ${w.stderr.trim().slice(-500)}`);
    }
    const seconds = Math.max(1, Math.round(r.durationMs / 1000));
    r.progress.update(`${label}: measuring ${seconds} s`);
    const prefix = join(dir, 'tx');
    const run = await exec([...base, '-T', String(seconds), '--log', `--log-prefix=${prefix}`, r.url]);
    r.progress.done(label);
    const failed = Number(/number of failed transactions: (\d+)/.exec(run.stdout)?.[1] ?? 0);
    const tps = Number(/tps = ([\d.]+) \(without initial connection time\)/.exec(run.stdout)?.[1]);
    if (run.code !== 0 || !Number.isFinite(tps))
      throw new Error(`${label}: pgbench exited ${run.code}: ${run.stderr.trim().slice(-500)}`);
    // Per-transaction log: client, transaction, latency in microseconds, script, epoch s, us.
    const latencies: number[] = [];
    for (const name of await readdir(dir)) {
      if (!name.startsWith('tx.')) continue;
      for (const line of (await readFile(join(dir, name), 'utf8')).split('\n')) {
        const us = Number(line.split(' ')[2]);
        if (line && Number.isFinite(us)) latencies.push(us / 1000);
      }
    }
    const transactions = latencies.length;
    return {
      ops: transactions * rowsPerTx,
      errors: failed,
      firstError: failed > 0 ? `${failed} failed transactions` : undefined,
      seconds,
      throughput: round(tps * rowsPerTx, 1),
      issued: transactions * rowsPerTx,
      ...summariseLatencies(latencies),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
