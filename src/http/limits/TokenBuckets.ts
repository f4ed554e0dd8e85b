/**
 * One token bucket per key (an owner id): `rate` tokens a second up to `burst`. Kept in
 * the process's memory: a limit that stops a runaway client, not an exact quota, so a
 * restart refilling the buckets is acceptable and no request pays a database round trip.
 */
export class TokenBuckets {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly rate: number,
    private readonly burst: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Takes one token for `key`: 0 when granted, else the seconds until one is available. */
  take(key: string): number {
    const now = this.now();
    const bucket = this.buckets.get(key) ?? { tokens: this.burst, at: now };
    bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.rate);
    bucket.at = now;
    this.buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      if (this.buckets.size > 10_000) this.sweep(now);
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.rate));
  }

  /** Seconds until `key` has a token (0: it has one now), without taking it. */
  wait(key: string): number {
    const bucket = this.buckets.get(key);
    if (!bucket) return 0;
    const tokens = Math.min(this.burst, bucket.tokens + ((this.now() - bucket.at) / 1000) * this.rate);
    return tokens >= 1 ? 0 : Math.max(1, Math.ceil((1 - tokens) / this.rate));
  }

  // A bucket that has refilled holds no information: drop it so idle owners cost no memory.
  private sweep(now: number): void {
    for (const [key, b] of this.buckets) {
      if (b.tokens + ((now - b.at) / 1000) * this.rate >= this.burst) this.buckets.delete(key);
    }
  }
}
