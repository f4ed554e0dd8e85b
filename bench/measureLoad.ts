// The bounded-concurrency load loop every scenario runs: `concurrency` callers issue
// operations back to back for warm-up plus duration; only operations that finish inside
// the measuring window count towards throughput and latency.
import { performance } from 'node:perf_hooks';
import { type LatencySummary, round, summariseLatencies } from './latencyStats.js';
import { type Progress, silentProgress } from './progress.js';

/** How a scenario's load is run: callers at once, warm-up, measured duration, progress. */
export interface LoadWindow {
  concurrency: number;
  warmupMs: number;
  durationMs: number;
  progress: Progress;
}

/** The load window of a scenario's run, without the run's other fields. */
export const loadWindow = ({ concurrency, warmupMs, durationMs, progress }: LoadWindow): LoadWindow => ({
  concurrency,
  warmupMs,
  durationMs,
  progress,
});

export interface LoadOptions extends Omit<LoadWindow, 'progress'> {
  label: string;
  progress?: Progress;
  /**
   * One operation; `seq` is unique across the run (warm-up included). Resolve to nothing
   * to have the whole call timed, or to a list of latencies (ms) when the call made
   * several requests (a burst) that each count as one operation.
   */
  // biome-ignore lint/suspicious/noConfusingVoidType: an operation returns nothing, or the latencies of its burst
  op: (seq: number) => Promise<void | number[]>;
  /** Stop early (for example when a pre-filled queue runs dry). */
  done?: () => boolean;
}

export interface LoadResult extends LatencySummary {
  ops: number;
  errors: number;
  firstError: string | undefined;
  /** Seconds actually measured (shorter than the duration when `done` stopped the run). */
  seconds: number;
  throughput: number;
  /** Operations issued in total, warm-up included. */
  issued: number;
  /** A drain only: milliseconds from the worker's start to its first completed job. */
  firstCompletionMs?: number;
}

export async function measureLoad(o: LoadOptions): Promise<LoadResult> {
  const progress = o.progress ?? silentProgress;
  const start = performance.now();
  const measureFrom = start + o.warmupMs;
  const end = measureFrom + o.durationMs;
  const samples: number[] = [];
  let seq = 0;
  let errors = 0;
  let firstError: string | undefined;
  let lastFinish = measureFrom;

  const ticker = setInterval(() => {
    const now = performance.now();
    const phase = now < measureFrom ? 'warm-up' : 'measuring';
    const secs = Math.max(0.001, (now - measureFrom) / 1000);
    progress.update(
      `${o.label}: ${phase} ${((now - start) / 1000).toFixed(0)}/${((end - start) / 1000).toFixed(0)} s` +
        (now >= measureFrom ? `, ${Math.round(samples.length / secs)} ops/s` : ''),
    );
  }, 1000);

  const caller = async () => {
    for (;;) {
      const t0 = performance.now();
      if (t0 >= end || o.done?.()) return;
      const mine = seq++;
      try {
        const latencies = await o.op(mine);
        const t1 = performance.now();
        if (t1 >= measureFrom && t1 <= end) {
          if (Array.isArray(latencies)) samples.push(...latencies);
          else samples.push(t1 - t0);
          lastFinish = t1;
        }
      } catch (error) {
        errors++;
        firstError ??= error instanceof Error ? error.message : String(error);
        // An error storm (server down) must not spin the CPU the other side needs.
        if (errors > 1000 && errors > samples.length) return;
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: o.concurrency }, caller));
  } finally {
    clearInterval(ticker);
    progress.done(o.label);
  }
  const measuredEnd = o.done?.() ? Math.min(end, lastFinish) : end;
  const seconds = Math.max(0.001, (measuredEnd - measureFrom) / 1000);
  return loadResult(samples, { errors, firstError, seconds, issued: seq });
}

/** The result of a run whose operations took `samples` (ms each), measured over `seconds`. */
export function loadResult(
  samples: number[],
  run: { errors: number; firstError?: string | undefined; seconds: number; issued: number },
): LoadResult {
  return {
    ops: samples.length,
    errors: run.errors,
    firstError: run.firstError,
    seconds: round(run.seconds, 3),
    throughput: round(samples.length / run.seconds, 1),
    issued: run.issued,
    ...summariseLatencies(samples),
  };
}
