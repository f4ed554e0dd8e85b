// Scale-out on one machine: the same backlog of jobs, run by 1, 2 and 4 worker processes
// against one PostgreSQL, reporting jobs completed per second. No faults; the fake
// provider answers in 20 to 40 ms, so the figures measure claiming and completion, not the
// provider. On a machine with few cores the processes compete for CPU with PostgreSQL.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { migrate } from '../../src/db/migrate.js';
import { createJob } from '../../src/jobs/createJob.js';
import { operationInputChecks } from '../../src/operations/operationInputChecks.js';
import { OperationRegistry } from '../../src/operations/operationRegistry.js';
import { sleep } from '../../test/helpers/until.js';
import { chaosConfig } from '../cluster/chaosConfig.js';
import { startOnejobFleet } from '../cluster/onejobFleet.js';
import { startDatabase } from '../cluster/startDatabase.js';
import { startFakePaymentProvider } from '../cluster/startFakePaymentProvider.js';
import { createRng } from '../random/createRng.js';

export interface ScaleRun {
  workers: number;
  jobs: number;
  seconds: number;
  jobsPerSecond: number;
  providerRequests: number;
  /** Jobs that did not succeed within the time limit. */
  unfinished: number;
}

export async function runScale(o: {
  seed: number;
  resultsDir?: string;
  database?: 'system' | 'embedded';
  jobs: number;
  workerCounts?: number[];
  timeoutMs?: number;
  log?: (line: string) => void;
}): Promise<ScaleRun[]> {
  const log = o.log ?? ((line: string) => process.stdout.write(`${line}\n`));
  const runs: ScaleRun[] = [];
  for (const workers of o.workerCounts ?? [1, 2, 4]) {
    const dir = mkdtempSync(join(tmpdir(), 'onejob-scale-'));
    const db = await startDatabase(o.database ?? 'system', dir);
    const provider = await startFakePaymentProvider('pay', createRng(o.seed), { minMs: 20, maxMs: 40 });
    let fleet: Awaited<ReturnType<typeof startOnejobFleet>> | undefined;
    const pool = new pg.Pool({ connectionString: db.url, max: 4 });
    try {
      const config = {
        ...chaosConfig({ providerUrl: provider.url, natsUrl: 'nats://127.0.0.1:1', stream: 'X' }),
      };
      config.outbox = { publishers: [{ kind: 'log' }] };
      config.worker = { concurrency: 10, leaseMs: 10_000, pollMs: 50 };
      const configPath = join(dir, 'onejob.json');
      writeFileSync(configPath, JSON.stringify(config));
      await migrate(db.url);
      fleet = await startOnejobFleet({
        counts: { api: 0, worker: workers, relay: 0 },
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? dir,
          DATABASE_URL: db.url,
          ONEJOB_API_KEYS: 'x=scale',
          CHAOS_WEBHOOK_SECRET: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        },
        configPath,
        cwd: dir,
      });
      // The whole backlog commits at once, after every worker is up, so the clock measures work only.
      const operations = new OperationRegistry({ config, inputChecks: operationInputChecks });
      const client = await pool.connect();
      await client.query('BEGIN');
      for (let i = 0; i < o.jobs; i++)
        await createJob(client, operations, {
          ownerId: 'scale',
          idempotencyKey: `scale-${i}`,
          operation: 'charge',
          input: { amount: i + 1 },
        });
      await client.query('COMMIT');
      client.release();
      const t0 = Date.now();
      const deadline = t0 + (o.timeoutMs ?? 120_000);
      let open = o.jobs;
      while (open > 0 && Date.now() < deadline) {
        await sleep(100);
        open = Number(
          (await pool.query(`SELECT count(*) AS n FROM onejob.jobs WHERE state <> 'succeeded'`)).rows[0].n,
        );
      }
      const seconds = (Date.now() - t0) / 1000;
      const run: ScaleRun = {
        workers,
        jobs: o.jobs,
        seconds: Math.round(seconds * 10) / 10,
        jobsPerSecond: Math.round(((o.jobs - open) / seconds) * 10) / 10,
        providerRequests: provider.requests.length,
        unfinished: open,
      };
      log(
        `${workers} worker process(es): ${run.jobs - open}/${run.jobs} jobs in ${run.seconds} s = ${run.jobsPerSecond} jobs/s`,
      );
      runs.push(run);
    } finally {
      await fleet?.stop().catch(() => undefined);
      await pool.end().catch(() => undefined);
      await provider.close();
      await db.close().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    }
  }
  if (o.resultsDir) {
    mkdirSync(o.resultsDir, { recursive: true });
    const file = join(o.resultsDir, `scale-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
    writeFileSync(file, JSON.stringify({ seed: o.seed, runs }, null, 2));
    log(`results: ${file}`);
  }
  return runs;
}
