// The pool an in-process scenario measures through: its size is part of the comparison
// (onejob as a library, raw SQL and the peers all get the same), so it is made in one place.
import pg from 'pg';
import type { OnejobConfig } from '../src/config/types.js';
import { createOnejob, type Onejob } from '../src/createOnejob.js';
import { createLogger } from '../src/observability/createLogger.js';
import type { LoadWindow } from './measureLoad.js';

/** A scenario measured in this process on a pool of `poolSize` connections to `url`. */
export interface PoolRun extends LoadWindow {
  url: string;
  poolSize: number;
}

/** Runs `fn` on the run's pool, named `application` in pg_stat_activity, and ends the pool after. */
export async function withRunPool<T>(
  r: Pick<PoolRun, 'url' | 'poolSize'>,
  application: string,
  fn: (pool: pg.Pool) => Promise<T>,
): Promise<T> {
  const pool = new pg.Pool({ connectionString: r.url, max: r.poolSize, application_name: application });
  try {
    return await fn(pool);
  } finally {
    await pool.end();
  }
}

/** Runs `fn` on onejob as a library over the run's pool, closing it before the pool ends. */
export function withRunLibrary<T>(
  r: Pick<PoolRun, 'url' | 'poolSize'>,
  application: string,
  options: { config: OnejobConfig; env?: NodeJS.ProcessEnv },
  fn: (onejob: Onejob) => Promise<T>,
): Promise<T> {
  return withRunPool(r, application, async (pool) => {
    const onejob = createOnejob({
      pool,
      config: options.config,
      logger: createLogger('warn'),
      ...(options.env ? { env: options.env } : {}),
    });
    try {
      return await fn(onejob);
    } finally {
      await onejob.close();
    }
  });
}
