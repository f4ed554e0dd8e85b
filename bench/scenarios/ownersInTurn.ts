// (fair) Owners in turn: owner B creates jobs one by one while the worker drains owner A's
// backlog, and each of B's jobs is timed from its creation to its settlement by the
// database's own timestamps (created_at in the creating transaction, finished_at in the
// completing one), not by when a poller noticed. A first-come worker made B wait for A's
// whole backlog.
import pg from 'pg';
import { createOnejob } from '../../src/createOnejob.js';
import { createLogger } from '../../src/observability/createLogger.js';
import { until } from '../../test/helpers/until.js';
import { benchConfig } from '../benchConfig.js';
import { type LoadResult, loadResult } from '../measureLoad.js';
import type { Progress } from '../progress.js';
import { type ServedRun, startServedServer } from '../serverProcess.js';

export interface FairRun extends ServedRun {
  /** A's backlog, already queued (queueJobs). */
  backlog: number;
  /** B's jobs, created one by one. */
  jobs: number;
  /** Milliseconds between two of B's creates. */
  everyMs: number;
  progress: Progress;
}

const B_OWNER = 'bench-b';

// Jobs completed so far (claimComplete.ts says why the event log's sequence).
const COMPLETED_SQL = `
SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS n FROM onejob.job_events_seq_seq`;

const B_TIMES_SQL = `
SELECT extract(epoch FROM finished_at - created_at)::float8 * 1000 AS ms
FROM onejob.jobs WHERE owner_id = $1 AND state = 'succeeded'`;

const A_LEFT_SQL = `SELECT count(*)::int AS n FROM onejob.jobs WHERE owner_id <> $1 AND state = 'queued'`;

export async function ownersInTurn(
  r: FairRun,
): Promise<LoadResult & { note: string; extra: Record<string, unknown> }> {
  const db = new pg.Client({ connectionString: r.databaseUrl, application_name: 'onejob-bench-fair' });
  await db.connect();
  const server = await startServedServer(
    r,
    'worker',
    'fair',
    benchConfig({ workerConcurrency: r.workerConcurrency }),
  );
  // B creates through the library, as an application would: the worker hears of each job.
  const pool = new pg.Pool({ connectionString: r.databaseUrl, max: 2, application_name: 'onejob-bench-b' });
  const b = createOnejob({
    pool,
    config: benchConfig({ workerConcurrency: r.workerConcurrency }),
    logger: createLogger('warn'),
  });
  const completed = async () => Number((await db.query<{ n: string }>(COMPLETED_SQL)).rows[0]!.n);
  try {
    // B starts once A's drain is under way, and is done long before it ends.
    await until(
      "A's drain to start",
      async () => (await completed()) >= Math.min(1_000, r.backlog / 10),
      120_000,
      { everyMs: 100 },
    );
    const t0 = performance.now();
    for (let i = 0; i < r.jobs; i++) {
      await b.jobs.create({
        ownerId: B_OWNER,
        idempotencyKey: `fair-b-${i}`,
        operation: 'noop',
        input: { amount: 1, note: 'owner b' },
      });
      r.progress.update(`owner B: ${i + 1} of ${r.jobs} created`);
      await new Promise((resolve) => setTimeout(resolve, r.everyMs));
    }
    const settled = async () => (await db.query<{ ms: number }>(B_TIMES_SQL, [B_OWNER])).rows;
    await until("B's jobs to settle", async () => (await settled()).length >= r.jobs, 120_000, {
      everyMs: 50,
    });
    const seconds = (performance.now() - t0) / 1000;
    const aLeft = (await db.query<{ n: number }>(A_LEFT_SQL, [B_OWNER])).rows[0]!.n;
    r.progress.done('owner B');
    const samples = (await settled()).map((row) => row.ms);
    return {
      ...loadResult(samples, { errors: 0, seconds, issued: r.jobs }),
      note: `B's ${r.jobs} jobs, create → settled (database timestamps); ${aLeft} of A's ${r.backlog} still queued when the last settled`,
      extra: { aQueuedAtEnd: aLeft, backlog: r.backlog },
    };
  } finally {
    await b.close();
    await pool.end();
    await server.stop();
    await db.end();
  }
}
