// (d) onejob's worker draining a pre-filled queue: claim, run the no-op provider, complete
// with compare-and-swap and the outbox event, as `onejob serve --role worker` does it.
import pg from 'pg';
import { benchConfig } from '../benchConfig.js';
import { measureCompletions } from '../measureCompletions.js';
import type { LoadResult } from '../measureLoad.js';
import type { Progress } from '../progress.js';
import { startServer } from '../serverProcess.js';
import { roleUnavailable } from './roleAvailable.js';

export const claimCompleteUnavailable = () => roleUnavailable('worker');

export interface ClaimCompleteRun {
  databaseUrl: string;
  workDir: string;
  logLevel: string;
  server: 'tsx' | 'dist';
  workerConcurrency: number;
  queueJobs: number;
  warmupMs: number;
  durationMs: number;
  progress: Progress;
}

export async function claimComplete(
  r: ClaimCompleteRun,
): Promise<LoadResult & { extra: Record<string, unknown> }> {
  const counter = new pg.Client({
    connectionString: r.databaseUrl,
    application_name: 'onejob-bench-counter',
  });
  await counter.connect();
  const server = await startServer({
    databaseUrl: r.databaseUrl,
    config: benchConfig({ workerConcurrency: r.workerConcurrency }),
    roles: 'worker',
    logFile: `${r.workDir}/server-worker.log`,
    logLevel: r.logLevel,
    server: r.server,
    workDir: r.workDir,
  });
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
        const { rows } = await counter.query<{ n: string }>(
          "SELECT count(*) AS n FROM onejob.jobs WHERE state = 'succeeded'",
        );
        return Number(rows[0]!.n);
      },
    });
    const { rows } = await counter.query<{ state: string; n: string }>(
      'SELECT state, count(*) AS n FROM onejob.jobs GROUP BY state',
    );
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
