// (g) The job queues people pick instead, doing the equivalent work in the same run:
// pg-boss and graphile-worker deduplicating enqueues, graphile-worker running no-op jobs.
import { Logger, makeWorkerUtils, run } from 'graphile-worker';
import pg from 'pg';
import PgBoss from 'pg-boss';
import { measureCompletions } from '../measureCompletions.js';
import { type LoadResult, measureLoad } from '../measureLoad.js';
import type { Progress } from '../progress.js';

export interface PeerRun {
  url: string;
  concurrency: number;
  poolSize: number;
  warmupMs: number;
  durationMs: number;
  progress: Progress;
}

const PAYLOAD = { amount: 1, note: 'bench' };
const quiet = new Logger(() => () => {});

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
      concurrency: r.concurrency,
      warmupMs: r.warmupMs,
      durationMs: r.durationMs,
      progress: r.progress,
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

async function withGraphilePool<T>(r: PeerRun, fn: (pool: pg.Pool) => Promise<T>): Promise<T> {
  const pool = new pg.Pool({
    connectionString: r.url,
    max: r.poolSize,
    application_name: 'onejob-bench-graphile',
  });
  try {
    const utils = await makeWorkerUtils({ pgPool: pool, logger: quiet });
    await utils.migrate();
    await utils.release();
    return await fn(pool);
  } finally {
    await pool.end();
  }
}

/** graphile-worker 0.16 `addJob` with a jobKey in `unsafe_dedupe` mode (the default, `replace`, overwrites the payload). */
export function graphileAddJob(r: PeerRun): Promise<LoadResult> {
  return withGraphilePool(r, async (pgPool) => {
    const utils = await makeWorkerUtils({ pgPool, logger: quiet });
    try {
      return await measureLoad({
        label: 'graphile-worker addJob',
        concurrency: r.concurrency,
        warmupMs: r.warmupMs,
        durationMs: r.durationMs,
        progress: r.progress,
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

/** graphile-worker 0.16 running no-op jobs from a pre-filled queue, one runner, `concurrency` jobs at once. */
export function graphileNoop(
  r: PeerRun & { workerConcurrency: number; queueJobs: number },
): Promise<LoadResult> {
  return withGraphilePool(r, async (pgPool) => {
    // graphile-worker's own SQL API, so the queue is filled the way it fills it.
    await pgPool.query(
      "SELECT graphile_worker.add_job('noop', json_build_object('n', g)) FROM generate_series(1, $1) g",
      [r.queueJobs],
    );
    let completed = 0;
    const runner = await run({
      pgPool,
      concurrency: r.workerConcurrency,
      noHandleSignals: true,
      pollInterval: 1000,
      logger: quiet,
      taskList: { noop: async () => {} },
    });
    runner.events.on('job:success', () => void completed++);
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
    }
  });
}
