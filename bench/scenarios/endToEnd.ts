// Latency from create to settled at a steady arrival rate, through `onejob serve --role
// api,worker`: the client sends creates at `rate` per second (not as fast as it can), and
// each job's latency runs from just before its request left to the job's finished_at in
// the database (the same machine's clock; finished_at is taken in the completing
// transaction, just before its commit).
import pg from 'pg';
import { until } from '../../test/helpers/until.js';
import { benchConfig } from '../benchConfig.js';
import { jobPoster } from '../httpLoadWorker.js';
import { type LoadResult, loadResult } from '../measureLoad.js';
import type { Progress } from '../progress.js';
import { BENCH_TOKEN, type ServedRun, startServedServer } from '../serverProcess.js';

export interface SteadyRun extends ServedRun {
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
  const server = await startServedServer(
    r,
    'api,worker',
    'e2e',
    benchConfig({ workerConcurrency: r.workerConcurrency }),
  );
  const poster = jobPoster({ url: server.url, token: BENCH_TOKEN, sockets: 64 });
  const post = async (key: string) => {
    const reply = await poster.post(key, false);
    if (reply.status !== 202) throw new Error(`HTTP ${reply.status}`);
  };
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
    return loadResult(samples, { ...sent, seconds, issued: keys.length });
  } finally {
    poster.close();
    await db.end();
    await server.stop();
  }
}
