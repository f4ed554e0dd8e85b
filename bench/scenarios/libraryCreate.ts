// (g) onejob as a library, in-process like pg-boss `send` in the same run: `jobs.create`
// without a caller's transaction (so it joins the group commit), on a pool of the same size.
import pg from 'pg';
import type { DatabaseConfig, IntakeConfig } from '../../src/config/types.js';
import { createOnejob } from '../../src/createOnejob.js';
import { createLogger } from '../../src/observability/createLogger.js';
import { benchConfig } from '../benchConfig.js';
import { type LoadResult, measureLoad } from '../measureLoad.js';
import type { Progress } from '../progress.js';
import { BENCH_OWNER } from '../serverProcess.js';

export interface LibraryRun {
  url: string;
  concurrency: number;
  poolSize: number;
  warmupMs: number;
  durationMs: number;
  progress: Progress;
  workerConcurrency: number;
  intake?: IntakeConfig;
  /** `database.pooler` when `url` leads to a pooler. */
  database?: DatabaseConfig;
}

/** `jobs.create` with a unique key per call; leaves `keyPrefix0..issued-1` behind. */
export async function libraryCreate(r: LibraryRun, keyPrefix: string): Promise<LoadResult> {
  const pool = new pg.Pool({
    connectionString: r.url,
    max: r.poolSize,
    application_name: 'onejob-bench-library',
  });
  const onejob = createOnejob({
    pool,
    config: {
      ...benchConfig({ workerConcurrency: r.workerConcurrency, intake: r.intake }),
      ...(r.database ? { database: r.database } : {}),
    },
    logger: createLogger('warn'),
  });
  try {
    return await measureLoad({
      label: 'library jobs.create',
      concurrency: r.concurrency,
      warmupMs: r.warmupMs,
      durationMs: r.durationMs,
      progress: r.progress,
      op: async (seq) => {
        const { replayed } = await onejob.jobs.create({
          ownerId: BENCH_OWNER,
          idempotencyKey: `${keyPrefix}${seq}`,
          operation: 'noop',
          input: { amount: 1, note: 'bench' },
        });
        if (replayed) throw new Error('library create replayed a unique key');
      },
    });
  } finally {
    await onejob.close();
    await pool.end();
  }
}
