// The bench's reading of the server's group-commit histograms.
import { describe, expect, it } from 'vitest';
import { bucketQuantile, summarizeBatchTimings } from '../../bench/batchTimings.js';

const histogram = (counts: [number, number][], sum = 0) => ({
  buckets: new Map(counts),
  count: counts.at(-1)![1],
  sum,
});

describe('batch timings', () => {
  it('a quantile is the upper bound of the first bucket holding that share of observations', () => {
    const h = histogram([
      [0.005, 50],
      [0.01, 98],
      [0.025, 100],
      [Number.POSITIVE_INFINITY, 100],
    ]);
    expect(bucketQuantile(h, 0.5)).toBe(0.005);
    expect(bucketQuantile(h, 0.99)).toBe(0.025);
    expect(bucketQuantile(histogram([[Number.POSITIVE_INFINITY, 0]]), 0.99)).toBeUndefined();
  });

  it('a scenario counts only the batches between its two readings', () => {
    const before = {
      took: histogram(
        [
          [0.01, 10],
          [Number.POSITIVE_INFINITY, 10],
        ],
        0.05,
      ),
      waited: histogram([
        [0.001, 10],
        [Number.POSITIVE_INFINITY, 10],
      ]),
      size: histogram(
        [
          [64, 10],
          [Number.POSITIVE_INFINITY, 10],
        ],
        40,
      ),
    };
    const after = {
      took: histogram(
        [
          [0.01, 10],
          [Number.POSITIVE_INFINITY, 30],
        ],
        1,
      ),
      waited: histogram([
        [0.001, 30],
        [Number.POSITIVE_INFINITY, 30],
      ]),
      size: histogram(
        [
          [64, 30],
          [Number.POSITIVE_INFINITY, 30],
        ],
        100,
      ),
    };
    expect(summarizeBatchTimings(before, after)).toEqual({
      batches: 20,
      meanBatchSize: 3,
      dbP50Ms: Number.POSITIVE_INFINITY,
      dbP99Ms: Number.POSITIVE_INFINITY,
      waitP99Ms: 1,
    });
  });
});
