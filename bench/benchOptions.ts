// Options of `npm run bench` / `onejob bench`, shared by both entry points.
import type { Command } from 'commander';
import type { IntakeConfig } from '../src/config/types.js';

export interface BenchOptions {
  /** PostgreSQL server the bench creates its own databases on (superuser, trust). */
  adminUrl: string;
  natsUrl: string;
  warmupMs: number;
  durationMs: number;
  /** Concurrent callers for the throughput scenarios. */
  concurrency: number;
  /** Concurrent callers for the create-latency scenario. */
  latencyConcurrency: number;
  /** Identical requests fired at once per key in the double-click storm. */
  stormSize: number;
  /** Connections of every pool in the run: the onejob server's, the raw SQL pool, the peers'. */
  poolSize: number;
  /** Concurrent callers of the raw claim-and-complete SQL. */
  claimConcurrency: number;
  /** Worker concurrency for onejob's worker and graphile-worker's no-op processing. */
  workerConcurrency: number;
  /** Jobs pre-queued before each processing scenario. */
  queueJobs: number;
  /** Jobs drained to the end when counting the rows and WAL one job writes. */
  costJobs: number;
  /** Owner A's backlog in the owners-in-turn scenario (fair). */
  fairBacklog: number;
  /** Jobs created per second in the create-to-settled latency scenarios. */
  steadyRate: number;
  /** Scenario ids to run (all when empty). */
  only: string[];
  /** Where the JSON result goes; undefined = bench/results/<timestamp>.json. */
  out: string | undefined;
  /** Keep the bench databases afterwards (for inspection). */
  keep: boolean;
  /** Server log level (info is what production runs). */
  logLevel: string;
  /**
   * The compiled dist/ that `npm start` runs (`npm run bench` builds it first), or the
   * source through tsx, whose loader adds about 40 MB of RSS.
   */
  server: 'tsx' | 'dist';
  progress: boolean;
  /** Group-commit settings for the server and library scenarios (unset: onejob's defaults). */
  intake: IntakeConfig;
}

export const DEFAULT_BENCH_OPTIONS: BenchOptions = {
  adminUrl: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  natsUrl: process.env.BENCH_NATS_URL ?? 'nats://127.0.0.1:4222',
  warmupMs: 2_000,
  durationMs: 10_000,
  concurrency: 64,
  latencyConcurrency: 16,
  stormSize: 64,
  poolSize: 20,
  claimConcurrency: 8,
  workerConcurrency: 24,
  queueJobs: 30_000,
  costJobs: 3_000,
  fairBacklog: 20_000,
  steadyRate: 200,
  only: [],
  out: undefined,
  keep: false,
  logLevel: 'info',
  server: 'dist',
  progress: true,
  intake: {},
};

const int = (v: string) => {
  const n = Number.parseInt(v, 10);
  if (!Number.isInteger(n) || n < 0) throw new Error(`"${v}" is not a non-negative integer`);
  return n;
};

/** Declares the bench options on a commander command (the CLI and bench/run.ts share them). */
export function addBenchOptions(cmd: Command): Command {
  const d = DEFAULT_BENCH_OPTIONS;
  return cmd
    .option('--duration <s>', 'measured seconds per scenario', String(d.durationMs / 1000))
    .option('--warmup <s>', 'warm-up seconds per scenario (not measured)', String(d.warmupMs / 1000))
    .option('--concurrency <n>', 'callers for throughput scenarios', String(d.concurrency))
    .option(
      '--latency-concurrency <n>',
      'callers for the create latency scenario',
      String(d.latencyConcurrency),
    )
    .option('--storm-size <n>', 'identical requests per key in the double-click storm', String(d.stormSize))
    .option('--pool <n>', 'connections per pool (server, raw SQL, peers)', String(d.poolSize))
    .option(
      '--claim-concurrency <n>',
      'callers of the raw claim-and-complete SQL',
      String(d.claimConcurrency),
    )
    .option(
      '--worker-concurrency <n>',
      'worker concurrency (onejob worker, graphile-worker)',
      String(d.workerConcurrency),
    )
    .option('--queue-jobs <n>', 'jobs pre-queued for each processing scenario', String(d.queueJobs))
    .option('--cost-jobs <n>', 'jobs drained when counting rows and WAL per job', String(d.costJobs))
    .option(
      '--fair-backlog <n>',
      "owner A's backlog while owner B's jobs are timed (fair)",
      String(d.fairBacklog),
    )
    .option(
      '--steady-rate <n>',
      'jobs per second in the create-to-settled latency runs',
      String(d.steadyRate),
    )
    .option('--only <ids>', 'comma-separated scenario ids (see the table), default all')
    .option('--out <file>', 'JSON result file (default bench/results/<timestamp>.json)')
    .option('--database-url <url>', 'PostgreSQL server to create bench databases on', d.adminUrl)
    .option('--nats-url <url>', 'NATS JetStream server', d.natsUrl)
    .option('--log-level <level>', 'server log level', d.logLevel)
    .option(
      '--server <how>',
      'run the server compiled (dist, what npm start runs; npm run bench builds it) or from source (tsx)',
      d.server,
    )
    .option('--max-batch <n>', 'intake.maxBatchSize of the server and library (1: no group commit)')
    .option('--batch-wait <ms>', 'intake.maxBatchWaitMs of the server and library')
    .option('--batches-in-flight <n>', 'intake.maxBatchesInFlight of the server and library')
    .option('--keep', 'keep the bench databases afterwards')
    .option('--no-progress', 'no progress lines on stderr');
}

export function benchOptionsFrom(o: Record<string, unknown>): BenchOptions {
  const seconds = (v: unknown) => Math.round(Number(v) * 1000);
  const s = (v: unknown) => String(v);
  return {
    adminUrl: s(o.databaseUrl),
    natsUrl: s(o.natsUrl),
    warmupMs: seconds(o.warmup),
    durationMs: seconds(o.duration),
    concurrency: int(s(o.concurrency)),
    latencyConcurrency: int(s(o.latencyConcurrency)),
    stormSize: int(s(o.stormSize)),
    poolSize: int(s(o.pool)),
    claimConcurrency: int(s(o.claimConcurrency)),
    workerConcurrency: int(s(o.workerConcurrency)),
    queueJobs: int(s(o.queueJobs)),
    costJobs: int(s(o.costJobs)),
    fairBacklog: int(s(o.fairBacklog)),
    steadyRate: int(s(o.steadyRate)),
    only: o.only
      ? s(o.only)
          .split(',')
          .map((x) => x.trim())
          .filter(Boolean)
      : [],
    out: o.out === undefined ? undefined : s(o.out),
    keep: Boolean(o.keep),
    logLevel: s(o.logLevel),
    server:
      o.server === 'dist'
        ? 'dist'
        : o.server === 'tsx'
          ? 'tsx'
          : (() => {
              throw new Error('--server: tsx or dist');
            })(),
    progress: o.progress !== false,
    intake: {
      ...(o.maxBatch === undefined ? {} : { maxBatchSize: int(s(o.maxBatch)) }),
      ...(o.batchWait === undefined ? {} : { maxBatchWaitMs: Number(o.batchWait) }),
      ...(o.batchesInFlight === undefined ? {} : { maxBatchesInFlight: int(s(o.batchesInFlight)) }),
    },
  };
}
