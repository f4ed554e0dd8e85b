// (g) The job queues people pick instead, doing the equivalent work in the same run:
// pg-boss and graphile-worker deduplicating enqueues, graphile-worker running no-op jobs.
import { closeSync, openSync, writeSync } from 'node:fs';
import { Logger, makeWorkerUtils, run } from 'graphile-worker';
import type pg from 'pg';
import PgBoss from 'pg-boss';
import { until } from '../../test/helpers/until.js';
import { checkpoint } from '../benchDatabase.js';
import { measureCompletions } from '../measureCompletions.js';
import { type LoadResult, loadResult, loadWindow, measureLoad } from '../measureLoad.js';
import { type PoolRun, withRunPool } from '../runPool.js';
import { type WriteCounters, writeCounter } from '../writeCost.js';
import { costResult } from './drainCost.js';
import { paced } from './endToEnd.js';

export type PeerRun = PoolRun;

const PAYLOAD = { amount: 1, note: 'bench' };
const quiet = new Logger(() => () => {});

/**
 * graphile-worker's runner logs as it does by default (a line per completed job, at info),
 * written to a file as the onejob server's log is: both drains pay for their log lines.
 * Without `path`, nothing is written. The returned `close` ends the file.
 */
function runnerLogger(path: string | undefined): { logger: Logger; close: () => void } {
  if (!path) return { logger: quiet, close: () => {} };
  const fd = openSync(path, 'a');
  const logger = new Logger((scope) => (level, message) => {
    // As its console logger: debug lines only with GRAPHILE_LOGGER_DEBUG set.
    if (level === 'debug' && !process.env.GRAPHILE_LOGGER_DEBUG) return;
    const worker = scope.workerId ? `(${scope.workerId})` : '';
    writeSync(
      fd,
      `${new Date().toISOString()} [${scope.label ?? 'core'}${worker}] ${level.toUpperCase()}: ${message}\n`,
    );
  });
  return { logger, close: () => closeSync(fd) };
}

/** pg-boss 10 `send` with singletonKey + singletonSeconds: its dedup needs both. */
export async function pgBossSend(r: PeerRun): Promise<LoadResult> {
  const boss = new PgBoss({
    connectionString: r.url,
    max: r.poolSize,
    supervise: false,
    schedule: false,
    application_name: 'onejob-bench-pgboss',
  });
  let bossError: unknown;
  boss.on('error', (e) => (bossError ??= e));
  await boss.start();
  try {
    await boss.createQueue('bench');
    const result = await measureLoad({
      label: 'pg-boss send',
      ...loadWindow(r),
      op: async (seq) => {
        const id = await boss.send('bench', PAYLOAD, { singletonKey: `k${seq}`, singletonSeconds: 3600 });
        if (!id) throw new Error('pg-boss deduplicated a unique key');
      },
    });
    if (bossError) throw bossError;
    return result;
  } finally {
    await boss.stop({ graceful: false, wait: true, close: true });
  }
}

function withGraphilePool<T>(r: PeerRun, fn: (pool: pg.Pool) => Promise<T>): Promise<T> {
  return withRunPool(r, 'onejob-bench-graphile', async (pool) => {
    const utils = await makeWorkerUtils({ pgPool: pool, logger: quiet });
    await utils.migrate();
    await utils.release();
    return await fn(pool);
  });
}

/** graphile-worker 0.16 `addJob` with a jobKey in `unsafe_dedupe` mode (the default, `replace`, overwrites the payload). */
export function graphileAddJob(r: PeerRun): Promise<LoadResult> {
  return withGraphilePool(r, async (pgPool) => {
    const utils = await makeWorkerUtils({ pgPool, logger: quiet });
    try {
      return await measureLoad({
        label: 'graphile-worker addJob',
        ...loadWindow(r),
        // A task no worker in this run handles, so these jobs stay queued.
        op: async (seq) =>
          void (await utils.addJob('bench_enqueue', PAYLOAD, {
            jobKey: `k${seq}`,
            jobKeyMode: 'unsafe_dedupe',
          })),
      });
    } finally {
      await utils.release();
    }
  });
}

/** A graphile-worker runner of `concurrency` jobs at once whose only task, `noop`, does nothing. */
const runNoopTasks = (pgPool: pg.Pool, concurrency: number, logger: Logger) =>
  run({
    pgPool,
    concurrency,
    noHandleSignals: true,
    pollInterval: 1000,
    logger,
    taskList: { noop: async () => {} },
  });

/** graphile-worker 0.16 running no-op jobs from a pre-filled queue, one runner, `concurrency` jobs at once. */
export function graphileNoop(
  r: PeerRun & { workerConcurrency: number; queueJobs: number; logFile?: string },
): Promise<LoadResult> {
  return withGraphilePool(r, async (pgPool) => {
    // graphile-worker's own SQL API, so the queue is filled the way it fills it.
    await pgPool.query(
      "SELECT graphile_worker.add_job('noop', json_build_object('n', g)) FROM generate_series(1, $1) g",
      [r.queueJobs],
    );
    await checkpoint(r.url);
    let completed = 0;
    const log = runnerLogger(r.logFile);
    const runner = await runNoopTasks(pgPool, r.workerConcurrency, log.logger);
    runner.events.on('job:complete', ({ error }) => {
      if (!error) completed++;
    });
    try {
      return await measureCompletions({
        label: 'graphile-worker no-op jobs',
        warmupMs: r.warmupMs,
        durationMs: r.durationMs,
        progress: r.progress,
        completed: () => completed,
        total: r.queueJobs,
      });
    } finally {
      await runner.stop();
      log.close();
    }
  });
}

/**
 * What one graphile-worker 0.16 job writes, from enqueued to done: a pre-filled queue of
 * `jobs` no-op jobs drained to the end, the database's rows and WAL read before the runner
 * starts and after it stopped (drainCost.ts does the same for onejob).
 */
export async function graphileDrainCost(
  r: PeerRun & { workerConcurrency: number; jobs: number },
): Promise<LoadResult & { note: string; extra: Record<string, unknown> }> {
  const utils = await makeWorkerUtils({ connectionString: r.url, logger: quiet });
  try {
    await utils.migrate();
  } finally {
    await utils.release();
  }
  const counter = await writeCounter(r.url);
  try {
    let before: WriteCounters | undefined;
    let started = 0;
    let completed = 0;
    await withGraphilePool(r, async (pgPool) => {
      await pgPool.query(
        "SELECT graphile_worker.add_job('noop', json_build_object('n', g)) FROM generate_series(1, $1) g",
        [r.jobs],
      );
      before = await counter.read();
      started = Date.now();
      const runner = await run({
        pgPool,
        concurrency: r.workerConcurrency,
        noHandleSignals: true,
        pollInterval: 1000,
        logger: quiet,
        taskList: { noop: async () => {} },
      });
      runner.events.on('job:complete', ({ error }) => {
        if (!error) completed++;
      });
      try {
        await until('every graphile-worker job done', async () => completed >= r.jobs, 120_000, {
          everyMs: 20,
        });
      } finally {
        await runner.stop();
      }
    });
    const seconds = (Date.now() - started) / 1000;
    const cost = await counter.cost(before!, await counter.read(), r.jobs);
    return costResult('graphile-worker', r.jobs, seconds, cost);
  } finally {
    await counter.end();
  }
}

/**
 * graphile-worker 0.16 at a steady arrival rate: addJob to done, per job (endToEnd.ts).
 * Done is `job:success`: the task has returned, and the job's delete is not yet sent, as
 * onejob's side ends at the job's `finished_at`, the start of the statement that settles it.
 */
export function graphileSteadyLatency(
  r: PeerRun & { workerConcurrency: number; rate: number; logFile?: string },
): Promise<LoadResult> {
  return withGraphilePool(r, async (pgPool) => {
    const sentAt = new Map<number, number>();
    const samples: number[] = [];
    const log = runnerLogger(r.logFile);
    const runner = await runNoopTasks(pgPool, r.workerConcurrency, log.logger);
    runner.events.on('job:success', ({ job }) => {
      const seq = (job.payload as { n: number }).n;
      const at = sentAt.get(seq);
      if (at !== undefined) samples.push(Date.now() - at);
    });
    const utils = await makeWorkerUtils({ pgPool, logger: quiet });
    try {
      const t0 = performance.now();
      const sent = await paced({ ...r, label: 'graphile-worker addJob → done' }, async (seq, at) => {
        const measuring = performance.now() - t0 >= r.warmupMs;
        if (measuring) sentAt.set(seq, at);
        await utils.addJob('noop', { n: seq });
      });
      await until('every graphile-worker job done', async () => samples.length >= sentAt.size, 60_000, {
        everyMs: 50,
      });
      const seconds = (performance.now() - t0 - r.warmupMs) / 1000;
      return loadResult(samples, { ...sent, seconds, issued: sentAt.size });
    } finally {
      await utils.release();
      await runner.stop();
      log.close();
    }
  });
}
