// (g) onejob as a library, in-process like pg-boss `send` in the same run: `jobs.create`
// without a caller's transaction (so it joins the group commit), on a pool of the same size.
import type { DatabaseConfig, IntakeConfig } from '../../src/config/types.js';
import { benchConfig } from '../benchConfig.js';
import { type LoadResult, loadWindow, measureLoad } from '../measureLoad.js';
import { type PoolRun, withRunLibrary } from '../runPool.js';
import { BENCH_OWNER } from '../serverProcess.js';

export interface LibraryRun extends PoolRun {
  workerConcurrency: number;
  intake?: IntakeConfig;
  /** `database.pooler` when `url` leads to a pooler. */
  database?: DatabaseConfig;
}

/** `jobs.create` with a unique key per call; leaves `keyPrefix0..issued-1` behind. */
export async function libraryCreate(r: LibraryRun, keyPrefix: string): Promise<LoadResult> {
  const config = {
    ...benchConfig({ workerConcurrency: r.workerConcurrency, intake: r.intake }),
    ...(r.database ? { database: r.database } : {}),
  };
  return withRunLibrary(r, 'onejob-bench-library', { config }, (onejob) =>
    measureLoad({
      label: 'library jobs.create',
      ...loadWindow(r),
      op: async (seq) => {
        const { replayed } = await onejob.jobs.create({
          ownerId: BENCH_OWNER,
          idempotencyKey: `${keyPrefix}${seq}`,
          operation: 'noop',
          input: { amount: 1, note: 'bench' },
        });
        if (replayed) throw new Error('library create replayed a unique key');
      },
    }),
  );
}
