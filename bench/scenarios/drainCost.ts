// What one job writes in onejob, from claim to settled and published: a pre-filled queue
// drained to the end by `onejob serve --role worker,relay`, the database's rows and WAL
// read before the server starts and after it stopped, divided by the jobs drained.
import pg from 'pg';
import { until } from '../../test/helpers/until.js';
import { benchConfig } from '../benchConfig.js';
import type { LoadResult } from '../measureLoad.js';
import { type ServedRun, startServedServer } from '../serverProcess.js';
import { type WriteCost, writeCounter } from '../writeCost.js';
import { queueJobs } from './rawSql.js';

export interface DrainCostRun extends ServedRun {
  jobs: number;
}

const PUBLISHED_SQL = `
SELECT (SELECT count(*) FROM onejob.jobs WHERE state = 'succeeded')::int AS succeeded,
       (SELECT count(*) FROM onejob.job_events e CROSS JOIN onejob.outbox_publishers p
        WHERE e.publish IS NOT NULL
          AND onejob.event_behind(e.xid, e.seq, p.done, p.window_end, p.window_seq))::int AS published`;

export async function onejobDrainCost(
  r: DrainCostRun,
): Promise<LoadResult & { note: string; extra: Record<string, unknown> }> {
  await queueJobs(r.databaseUrl, r.jobs, 'cost-');
  const counter = await writeCounter(r.databaseUrl);
  const watch = new pg.Client({ connectionString: r.databaseUrl });
  await watch.connect();
  try {
    const before = await counter.read();
    const started = Date.now();
    const server = await startServedServer(
      r,
      'worker,relay',
      'cost',
      benchConfig({ workerConcurrency: r.workerConcurrency }),
    );
    try {
      await until(
        'every job settled and published',
        async () => {
          const { rows } = await watch.query<{ succeeded: number; published: number }>(PUBLISHED_SQL);
          return rows[0]!.succeeded >= r.jobs && rows[0]!.published >= r.jobs;
        },
        120_000,
        { everyMs: 100 },
      );
    } finally {
      await server.stop();
    }
    const seconds = (Date.now() - started) / 1000;
    const cost = await counter.cost(before, await counter.read(), r.jobs);
    return costResult('onejob', r.jobs, seconds, cost);
  } finally {
    await watch.end();
    await counter.end();
  }
}

export function costResult(
  who: string,
  jobs: number,
  seconds: number,
  cost: WriteCost,
): LoadResult & { note: string; extra: Record<string, unknown> } {
  return {
    ops: jobs,
    errors: 0,
    firstError: undefined,
    seconds: Math.round(seconds * 1000) / 1000,
    throughput: Math.round((jobs / seconds) * 10) / 10,
    issued: jobs,
    p50Ms: Number.NaN,
    p99Ms: Number.NaN,
    maxMs: Number.NaN,
    note: `${who}: ${cost.rowsPerJob} rows and ${cost.walBytesPerJob.toLocaleString('en-US')} WAL bytes per job, ${cost.fullPageBytesPerJob.toLocaleString('en-US')} of them full-page images (${Object.entries(
      cost.rowsByTable,
    )
      .map(([t, n]) => `${t.replace(/^[^.]*\./, '')} ${n}`)
      .join(', ')})`,
    extra: { ...cost },
  };
}
