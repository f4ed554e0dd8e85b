// Latency samples of one scenario, summarised as the percentiles the report uses.

export interface LatencySummary {
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

export function summariseLatencies(samples: number[]): LatencySummary {
  if (samples.length === 0) return { p50Ms: Number.NaN, p99Ms: Number.NaN, maxMs: Number.NaN };
  const sorted = Float64Array.from(samples).sort();
  // Nearest-rank percentile: the smallest sample with at least p of all samples at or below it.
  const at = (p: number) =>
    sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
  return { p50Ms: round(at(0.5)), p99Ms: round(at(0.99)), maxMs: round(sorted[sorted.length - 1]!) };
}

export function round(n: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}
