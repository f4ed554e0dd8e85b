// Throughput of a worker draining a pre-filled queue: the harness does not drive each
// operation, it only watches a completion counter through warm-up and the measured window.
import { performance } from 'node:perf_hooks';
import { round, summariseLatencies } from './latencyStats.js';
import type { LoadResult } from './measureLoad.js';
import { type Progress, silentProgress } from './progress.js';

export interface CompletionOptions {
  label: string;
  warmupMs: number;
  durationMs: number;
  progress?: Progress;
  /** Jobs completed so far. */
  completed: () => Promise<number> | number;
  /** How often to read the counter (a database count costs the database). Default 50 ms. */
  pollMs?: number;
  /** Jobs that were queued: the run ends early once all of them completed. */
  total: number;
  /** Latencies (ms) observed per job in the measured window, if the worker reports them. */
  latencies?: () => number[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Longest a drain may take to complete its first job before the run gives up on it. */
const FIRST_COMPLETION_LIMIT_MS = 120_000;

export async function measureCompletions(o: CompletionOptions): Promise<LoadResult> {
  const progress = o.progress ?? silentProgress;
  // The window opens once the worker has completed its first job: a worker's start (a
  // process starting, its first plans on a queue without statistics) is reported on its
  // own, as firstCompletionMs, instead of eating into a short window.
  const started = performance.now();
  const before = await o.completed();
  while ((await o.completed()) === before) {
    if (performance.now() - started > FIRST_COMPLETION_LIMIT_MS)
      throw new Error(`${o.label}: no job completed within ${FIRST_COMPLETION_LIMIT_MS / 1000} s`);
    progress.update(`${o.label}: waiting for the first completed job`);
    await sleep(o.pollMs ?? 50);
  }
  const firstCompletionMs = round(performance.now() - started, 0);
  const start = performance.now();
  const measureFrom = start + o.warmupMs;
  const end = measureFrom + o.durationMs;
  while (performance.now() < measureFrom) {
    progress.update(`${o.label}: warm-up, ${await o.completed()} done`);
    if ((await o.completed()) >= o.total)
      throw new Error(`${o.label}: the queue of ${o.total} ran dry during warm-up; raise --queue-jobs`);
    await sleep(o.pollMs ?? 100);
  }
  const c0 = await o.completed();
  const t0 = performance.now();
  if (c0 >= o.total)
    throw new Error(`${o.label}: the queue of ${o.total} ran dry during warm-up; raise --queue-jobs`);
  let c1 = c0;
  let t1 = t0;
  while (performance.now() < end) {
    await sleep(o.pollMs ?? 50);
    c1 = await o.completed();
    t1 = performance.now();
    progress.update(
      `${o.label}: measuring, ${Math.round((c1 - c0) / Math.max(0.001, (t1 - t0) / 1000))} jobs/s`,
    );
    if (c1 >= o.total) break;
  }
  progress.done(o.label);
  const seconds = Math.max(0.001, (t1 - t0) / 1000);
  const ops = c1 - c0;
  return {
    ops,
    errors: 0,
    firstError: undefined,
    seconds: round(seconds, 3),
    throughput: round(ops / seconds, 1),
    issued: c1,
    firstCompletionMs,
    ...summariseLatencies(o.latencies?.() ?? []),
  };
}
