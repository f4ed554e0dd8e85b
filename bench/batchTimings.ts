// Where a create's time goes inside the server: the group-commit histograms
// (onejob_intake_batch_wait_seconds, onejob_intake_batch_seconds, onejob_intake_batch_size,
// path "jobs") read from the server's /metrics before and after a scenario. The difference
// says how many batches ran, how large they were, and in which bucket their 50th and 99th
// percentiles fall: time in PostgreSQL against time gathering.

interface Histogram {
  /** Cumulative counts by upper bound (seconds or requests), +Inf included. */
  buckets: Map<number, number>;
  count: number;
  sum: number;
}

export interface BatchTimings {
  took: Histogram;
  waited: Histogram;
  size: Histogram;
}

const METRICS = {
  took: 'onejob_intake_batch_seconds',
  waited: 'onejob_intake_batch_wait_seconds',
  size: 'onejob_intake_batch_size',
} as const;

function parse(text: string, name: string, path: string): Histogram {
  const h: Histogram = { buckets: new Map(), count: 0, sum: 0 };
  const label = `path="${path}"`;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name) || !line.includes(label)) continue;
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (line.startsWith(`${name}_bucket{`)) {
      const le = /le="([^"]+)"/.exec(line)?.[1];
      if (le) h.buckets.set(le === '+Inf' ? Number.POSITIVE_INFINITY : Number(le), value);
    } else if (line.startsWith(`${name}_count`)) h.count = value;
    else if (line.startsWith(`${name}_sum`)) h.sum = value;
  }
  return h;
}

/** The server's group-commit histograms for creates now (the API answers /metrics on loopback). */
export async function readBatchTimings(serverUrl: string): Promise<BatchTimings> {
  const res = await fetch(`${serverUrl}/metrics`);
  if (!res.ok) throw new Error(`GET /metrics answered ${res.status}`);
  const text = await res.text();
  return {
    took: parse(text, METRICS.took, 'jobs'),
    waited: parse(text, METRICS.waited, 'jobs'),
    size: parse(text, METRICS.size, 'jobs'),
  };
}

function minus(a: Histogram, b: Histogram): Histogram {
  const buckets = new Map<number, number>();
  for (const [le, n] of a.buckets) buckets.set(le, n - (b.buckets.get(le) ?? 0));
  return { buckets, count: a.count - b.count, sum: a.sum - b.sum };
}

/** The upper bound of the bucket holding quantile `q`, or undefined with no observations. */
export function bucketQuantile(h: Histogram, q: number): number | undefined {
  if (h.count <= 0) return undefined;
  const rank = q * h.count;
  for (const le of [...h.buckets.keys()].sort((x, y) => x - y)) {
    if ((h.buckets.get(le) ?? 0) >= rank) return le;
  }
  return Number.POSITIVE_INFINITY;
}

export interface BatchTimingSummary {
  batches: number;
  meanBatchSize: number;
  /** Bucket upper bounds, in milliseconds. */
  dbP50Ms?: number;
  dbP99Ms?: number;
  waitP99Ms?: number;
}

/** What happened between two readings. */
export function summarizeBatchTimings(before: BatchTimings, after: BatchTimings): BatchTimingSummary {
  const took = minus(after.took, before.took);
  const waited = minus(after.waited, before.waited);
  const size = minus(after.size, before.size);
  const ms = (s: number | undefined) => (s === undefined ? undefined : s * 1000);
  return {
    batches: took.count,
    meanBatchSize: size.count > 0 ? Math.round((size.sum / size.count) * 10) / 10 : 0,
    dbP50Ms: ms(bucketQuantile(took, 0.5)),
    dbP99Ms: ms(bucketQuantile(took, 0.99)),
    waitP99Ms: ms(bucketQuantile(waited, 0.99)),
  };
}

/** One line for the results table. */
export function describeBatchTimings(s: BatchTimingSummary): string {
  const le = (v: number | undefined) => (v === undefined ? '-' : `≤ ${Number(v.toPrecision(3))} ms`);
  return (
    `${s.batches.toLocaleString('en-US')} batches of ${s.meanBatchSize} (warm-up included); ` +
    `in PostgreSQL p50 ${le(s.dbP50Ms)}, p99 ${le(s.dbP99Ms)}; oldest request's wait p99 ${le(s.waitP99Ms)}`
  );
}
