import { describe, expect, it } from 'vitest';
import { newIntentKey } from '../../src/client/newIntentKey.js';
import { backoffDelay, parseRetryAfter, resolveRetry } from '../../src/client/retryPolicy.js';

describe('retry policy', () => {
  it('full jitter: each delay is uniform below a cap that doubles up to maxDelayMs', () => {
    const max = resolveRetry({ baseDelayMs: 100, maxDelayMs: 1000, random: () => 0.999999 });
    expect([1, 2, 3, 4, 5, 6].map((r) => backoffDelay(r, max))).toEqual([99, 199, 399, 799, 999, 999]);
    const min = resolveRetry({ baseDelayMs: 100, maxDelayMs: 1000, random: () => 0 });
    expect(backoffDelay(4, min)).toBe(0);
  });

  it('Retry-After is a floor on the jittered delay', () => {
    const p = resolveRetry({ baseDelayMs: 100, random: () => 0.5 });
    expect(backoffDelay(1, p, 2000)).toBe(2000);
    expect(backoffDelay(8, resolveRetry({ baseDelayMs: 1000, random: () => 0.9 }), 10)).toBe(9000);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });

  it('retry: false sends each request once', () => {
    expect(resolveRetry(false).maxTries).toBe(1);
  });
});

describe('newIntentKey', () => {
  it('makes distinct UUID keys, with or without randomUUID', () => {
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    const keys = new Set(Array.from({ length: 1000 }, () => newIntentKey()));
    expect(keys.size).toBe(1000);
    for (const k of keys) expect(k).toMatch(uuid);
    const original = globalThis.crypto.randomUUID;
    try {
      // Browsers hide randomUUID on insecure origins; the fallback must keep the shape.
      Object.defineProperty(globalThis.crypto, 'randomUUID', { value: undefined, configurable: true });
      expect(newIntentKey('x-')).toMatch(
        /^x-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      );
    } finally {
      Object.defineProperty(globalThis.crypto, 'randomUUID', { value: original, configurable: true });
    }
  });
});
