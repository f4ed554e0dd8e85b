import { benchConfig } from '../benchConfig.js';
import { connectCounter } from '../benchDatabase.js';
import { measureCompletions } from '../measureCompletions.js';
import type { LoadResult } from '../measureLoad.js';
import type { Progress } from '../progress.js';
import { type ServedRun, startServedServer } from '../serverProcess.js';
import { roleUnavailable } from './roleAvailable.js';

// Jobs completed so far, read from the event log's sequence: the queue is filled without
// events and a claim writes none, so each `succeeded` event the worker writes takes the next number. One page
// read, where counting the jobs by state scans the whole table (with its dead versions,
// autovacuum being off here) four times a second on the database the worker is using:
// about 10 ms of a core each time, which graphile-worker's in-process counter does not
// pay. A number is taken before its statement commits, so the count runs at most one
// completion batch ahead, at both ends of the window alike.
const COMPLETED_SQL = `
SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS n FROM onejob.job_events_seq_seq`;

export const claimCompleteUnavailable = () => roleUnavailable('worker');

export interface ClaimCompleteRun extends ServedRun {
  queueJobs: number;
  warmupMs: number;
  durationMs: number;
  progress: Progress;
  /** A priced provider: every attempt holds its cost against the owner's budget first. */
  priced?: boolean;
}

export async function claimComplete(
  r: ClaimCompleteRun,
): Promise<LoadResult & { extra: Record<string, unknown> }> {
  const counter = await connectCounter(r.databaseUrl);
  const server = await startServedServer(
    r,
    'worker',
    'worker',
    benchConfig({ workerConcurrency: r.workerConcurrency, priced: r.priced === true }),
  );
  const stopRss = server.sampleRss();
  try {
    const result = await measureCompletions({
      label: 'onejob worker',
      warmupMs: r.warmupMs,
      durationMs: r.durationMs,
      progress: r.progress,
      pollMs: 250,
      total: r.queueJobs,
      completed: async () => {
        const { rows } = await counter.query<{ n: string }>(COMPLETED_SQL);
        return Number(rows[0]!.n);
      },
    });
    const { rows: numbered } = await counter.query<{ n: string }>(COMPLETED_SQL);
    const { rows } = await counter.query<{ state: string; n: string }>(
      'SELECT state, count(*) AS n FROM onejob.jobs GROUP BY state',
    );
    const succeeded = Number(rows.find((x) => x.state === 'succeeded')?.n ?? 0);
    // The numbers count the jobs only while nothing else writes events and no
    // number is lost (an aborted batch): checked against the jobs table once, at the end,
    // allowing for the batches that commit between the two readings.
    const drift = Number(numbered[0]!.n) - succeeded;
    if (Math.abs(drift) > 4 * r.workerConcurrency)
      throw new Error(`onejob worker: the event log's sequence is ${drift} ahead of the succeeded jobs`);
    return {
      ...result,
      extra: {
        serverRssMb: stopRss(),
        serverIdleRssMb: server.idleRssMb,
        states: Object.fromEntries(rows.map((x) => [x.state, Number(x.n)])),
      },
    };
  } finally {
    await server.stop();
    await counter.end();
  }
}
