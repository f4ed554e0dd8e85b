// The state machine's decisions as plain functions: when an attempt may start, what a job
// does after an attempt ends without a result, and the retry backoff. Their interplay
// with the SQL is stateMachine.property.test.ts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { backoffMs } from '../../src/jobs/retryPolicy.js';
import { refuseStart, settleAfterAttempt } from '../../src/jobs/stateMachine.js';

describe('attempt state machine rules', () => {
  it('only a definite failure frees an exclusive job for a retry; an unknown outcome blocks it', () => {
    const base = { exclusive: true, othersRunning: 0, othersUnknown: 0, attemptCount: 1, maxAttempts: 3 };
    expect(settleAfterAttempt({ ...base, ended: 'failed' })).toEqual({ state: 'queued', retry: true });
    expect(settleAfterAttempt({ ...base, ended: 'unknown' })).toEqual({ state: 'unknown', retry: false });
    expect(settleAfterAttempt({ ...base, ended: 'failed', attemptCount: 3 })).toEqual({
      state: 'failed',
      retry: false,
    });
    expect(settleAfterAttempt({ ...base, exclusive: false, ended: 'unknown' })).toEqual({
      state: 'queued',
      retry: true,
    });
    expect(
      refuseStart({
        jobState: 'unknown',
        exclusive: true,
        live: ['unknown'],
        attemptCount: 1,
        maxAttempts: 3,
      }),
    ).toBe('attempt_outcome_unknown');
    expect(
      refuseStart({
        jobState: 'running',
        exclusive: false,
        live: ['running'],
        attemptCount: 1,
        maxAttempts: 3,
      }),
    ).toBeNull();
  });

  it('a final failure takes the retry away, yet waits for a running sibling and for unknown ones', () => {
    const base = { exclusive: false, othersRunning: 0, othersUnknown: 0, attemptCount: 1, maxAttempts: 3 };
    expect(settleAfterAttempt({ ...base, ended: 'failed', final: true })).toEqual({
      state: 'failed',
      retry: false,
    });
    expect(settleAfterAttempt({ ...base, ended: 'failed', final: false })).toEqual({
      state: 'queued',
      retry: true,
    });
    // A hedge still running may win: the job keeps running.
    expect(settleAfterAttempt({ ...base, ended: 'failed', final: true, othersRunning: 1 })).toEqual({
      state: 'running',
      retry: false,
    });
    // An unknown sibling's late result may still win: the job waits as it would with no attempts left.
    expect(settleAfterAttempt({ ...base, ended: 'failed', final: true, othersUnknown: 1 })).toEqual({
      state: 'unknown',
      retry: false,
    });
    expect(settleAfterAttempt({ ...base, exclusive: true, ended: 'failed', final: true })).toEqual({
      state: 'failed',
      retry: false,
    });
  });

  it('backoff grows exponentially, stays within its cap and is jittered', () => {
    const retry = { baseDelayMs: 100, maxDelayMs: 1_000 };
    expect(backoffMs(1, retry, () => 0)).toBe(50);
    expect(backoffMs(1, retry, () => 1)).toBe(100);
    expect(backoffMs(3, retry, () => 1)).toBe(400);
    expect(backoffMs(10, retry, () => 1)).toBe(1_000);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), fc.double({ min: 0, max: 1, noNaN: true }), (k, r) => {
        const d = backoffMs(k, retry, () => r);
        return d >= 50 && d <= 1_000;
      }),
    );
  });
});
