// How soon after its runAt a waiting job starts. Jobs are created with runAt spread over
// the next seconds, against engines that each run a worker (each with its own pool, LISTEN
// connection and wake-up timer, as separate processes would have); once all have
// succeeded, the lateness of each is read from what the database recorded: the first
// attempt's started_at (the claim's transaction time) minus the job's run_at. A poll
// interval far longer than the spread (--poll-ms) shows the jobs do not wait for a poll.
//
//   node --import tsx bench/runAtLatency.ts [--jobs 300] [--spread-ms 5000] [--engines 2] [--poll-ms 200]
import { parseArgs } from 'node:util';
import pg from 'pg';
import { createOnejob, type Onejob } from '../src/createOnejob.js';
import { createLogger } from '../src/observability/createLogger.js';
import { benchConfig } from './benchConfig.js';
import { benchRunId, createBenchDatabase } from './benchDatabase.js';
import { BENCH_OWNER } from './serverProcess.js';

const { values } = parseArgs({
  options: {
    jobs: { type: 'string', default: '300' },
    'spread-ms': { type: 'string', default: '5000' },
    engines: { type: 'string', default: '2' },
    'poll-ms': { type: 'string', default: '200' },
    'admin-url': {
      type: 'string',
      default: process.env.BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    },
  },
});
const jobs = Number(values.jobs);
const spreadMs = Number(values['spread-ms']);
const engineCount = Number(values.engines);
const pollMs = Number(values['poll-ms']);

const db = await createBenchDatabase(values['admin-url'], benchRunId(), 'run_at');
const check = new pg.Pool({ connectionString: db.url, max: 2, application_name: 'onejob-bench-run-at' });
const engines: Onejob[] = [];
try {
  for (let i = 0; i < engineCount; i += 1) {
    const config = benchConfig({ workerConcurrency: 10 });
    const onejob = createOnejob({
      connectionString: db.url,
      config: { ...config, worker: { ...config.worker, pollMs } },
      logger: createLogger('warn'),
    });
    engines.push(onejob);
    await onejob.start({ roles: ['worker'] });
  }
  // Every job is created before its time: the first comes due 2 s from now.
  const first = Date.now() + 2_000;
  for (let n = 0; n < jobs; n += 1) {
    const runAt = new Date(first + Math.floor((n * spreadMs) / jobs));
    await engines[n % engineCount]!.jobs.create({
      ownerId: BENCH_OWNER,
      idempotencyKey: `run-at-${n}`,
      operation: 'noop',
      input: { amount: 1 },
      runAt,
    });
  }
  for (;;) {
    const { rows } = await check.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM onejob.jobs WHERE state = 'succeeded'`,
    );
    if (rows[0]!.n >= jobs) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  const { rows } = await check.query<{ ms: number; early: boolean }>(
    `SELECT extract(epoch FROM a.started_at - j.run_at)::float8 * 1000 AS ms, a.started_at < j.run_at AS early
     FROM onejob.jobs j JOIN onejob.attempts a ON a.job_id = j.id AND a.owner_id = j.owner_id AND a.n = 1
     ORDER BY 1`,
  );
  const ms = rows.map((r) => r.ms);
  const at = (q: number) => ms[Math.min(ms.length - 1, Math.floor(q * ms.length))]!;
  const within100 = ms.filter((x) => x <= 100).length;
  process.stdout.write(
    `${JSON.stringify(
      {
        jobs: ms.length,
        engines: engineCount,
        pollMs,
        spreadMs,
        startedBeforeRunAt: rows.filter((r) => r.early).length,
        latenessMs: {
          min: +ms[0]!.toFixed(2),
          p50: +at(0.5).toFixed(2),
          p90: +at(0.9).toFixed(2),
          p99: +at(0.99).toFixed(2),
          max: +ms[ms.length - 1]!.toFixed(2),
        },
        within100ms: `${within100}/${ms.length}`,
      },
      null,
      2,
    )}\n`,
  );
} finally {
  for (const e of engines) await e.close();
  await check.end();
  await db.drop();
}
