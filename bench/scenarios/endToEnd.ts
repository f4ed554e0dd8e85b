// Latency from create to settled at a steady arrival rate, through `onejob serve --role
// api,worker`: the client sends creates at `rate` per second (not as fast as it can), and
// each job's latency runs from just before its request left to the job's finished_at in
// the database (the same machine's clock; finished_at is taken in the completing
// transaction, just before its commit).
import http from 'node:http';
import pg from 'pg';
import { until } from '../../test/helpers/until.js';
import { benchConfig } from '../benchConfig.js';
import { BENCH_BODY } from '../httpLoadWorker.js';
import { round, summariseLatencies } from '../latencyStats.js';
import type { LoadResult } from '../measureLoad.js';
import type { Progress } from '../progress.js';
import { BENCH_TOKEN, startServer } from '../serverProcess.js';

export interface SteadyRun {
  databaseUrl: string;
  workDir: string;
  logLevel: string;
  server: 'tsx' | 'dist';
  workerConcurrency: number;
  rate: number;
  warmupMs: number;
  durationMs: number;
  progress: Progress;
}

/**
 * Calls `send(seq)` `rate` times a second for warm-up plus duration, on a fixed schedule
 * (a slow reply does not delay the next send). Returns the send times of the measured ones.
 */
export async function paced(
  r: { rate: number; warmupMs: number; durationMs: number; progress: Progress; label: string },
  send: (seq: number, sentAt: number) => Promise<void>,
): Promise<{ measured: Map<number, number>; errors: number; firstError?: string }> {
  const start = performance.now();
  const measureFrom = start + r.warmupMs;
  const total = Math.round(((r.warmupMs + r.durationMs) / 1000) * r.rate);
  const measured = new Map<number, number>();
  const pending = new Set<Promise<void>>();
  let errors = 0;
  let firstError: string | undefined;
  for (let seq = 0; seq < total; seq++) {
    const due = start + (seq * 1000) / r.rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((res) => setTimeout(res, wait));
    const sentAt = Date.now();
    if (performance.now() >= measureFrom) measured.set(seq, sentAt);
    const p = send(seq, sentAt).catch((error) => {
      errors++;
      firstError ??= error instanceof Error ? error.message : String(error);
    });
    pending.add(p);
    void p.finally(() => pending.delete(p));
    if (seq % r.rate === 0) r.progress.update(`${r.label}: ${seq} of ${total} sent`);
  }
  await Promise.all(pending);
  r.progress.done(r.label);
  return { measured, errors, firstError };
}

export async function onejobSteadyLatency(r: SteadyRun): Promise<LoadResult> {
  const server = await startServer({
    databaseUrl: r.databaseUrl,
    config: benchConfig({ workerConcurrency: r.workerConcurrency }),
    roles: 'api,worker',
    logFile: `${r.workDir}/server-e2e.log`,
    logLevel: r.logLevel,
    server: r.server,
    workDir: r.workDir,
  });
  const url = new URL('/v1/jobs', server.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const post = (key: string) =>
    new Promise<void>((resolve, reject) => {
      const req = http.request(
        {
          agent,
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: {
            authorization: `Bearer ${BENCH_TOKEN}`,
            'content-type': 'application/json',
            'idempotency-key': key,
          },
        },
        (res) => {
          res.resume();
          res.on('end', () =>
            res.statusCode === 202 ? resolve() : reject(new Error(`HTTP ${res.statusCode}`)),
          );
        },
      );
      req.on('error', reject);
      req.end(BENCH_BODY);
    });
  const db = new pg.Client({ connectionString: r.databaseUrl });
  await db.connect();
  try {
    const t0 = performance.now();
    const sent = await paced({ ...r, label: 'onejob create → settled' }, (seq) => post(`e2e-${seq}`));
    const keys = [...sent.measured.keys()].map((seq) => `e2e-${seq}`);
    const finished = async () => {
      const { rows } = await db.query<{ key: string; at: number }>(
        `SELECT idempotency_key AS key, extract(epoch FROM finished_at)::float8 * 1000 AS at
         FROM onejob.jobs WHERE idempotency_key = ANY($1::text[]) AND state = 'succeeded'`,
        [keys],
      );
      return rows;
    };
    await until('every job settled', async () => (await finished()).length >= keys.length, 60_000, {
      everyMs: 250,
    });
    const samples = (await finished()).map((row) => row.at - sent.measured.get(Number(row.key.slice(4)))!);
    const seconds = (performance.now() - t0 - r.warmupMs) / 1000;
    return {
      ops: samples.length,
      errors: sent.errors,
      firstError: sent.firstError,
      seconds: round(seconds, 3),
      throughput: round(samples.length / seconds, 1),
      issued: keys.length,
      ...summariseLatencies(samples),
    };
  } finally {
    agent.destroy();
    await db.end();
    await server.stop();
  }
}
