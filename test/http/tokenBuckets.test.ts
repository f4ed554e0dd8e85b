import { describe, expect, it } from 'vitest';
import { TokenBuckets } from '../../src/http/limits/TokenBuckets.js';

describe('TokenBuckets', () => {
  it('grants the burst at once, then one token per 1/rate seconds, and names the wait', () => {
    let now = 0;
    const buckets = new TokenBuckets(2, 3, () => now);
    expect([buckets.take('a'), buckets.take('a'), buckets.take('a')]).toEqual([0, 0, 0]);
    expect(buckets.take('a')).toBe(1);
    now += 500; // half a second at 2 a second: one token back
    expect(buckets.take('a')).toBe(0);
    expect(buckets.take('a')).toBe(1);
  });

  it("one key's empty bucket leaves another key's full", () => {
    const buckets = new TokenBuckets(0.001, 1, () => 0);
    expect(buckets.take('a')).toBe(0);
    expect(buckets.take('a')).toBeGreaterThan(1);
    expect(buckets.take('b')).toBe(0);
  });

  it('a bucket never holds more than its burst, however long it stays idle', () => {
    let now = 0;
    const buckets = new TokenBuckets(10, 2, () => now);
    buckets.take('a');
    now += 3_600_000;
    expect([buckets.take('a'), buckets.take('a'), buckets.take('a')]).toEqual([0, 0, 1]);
  });
});
