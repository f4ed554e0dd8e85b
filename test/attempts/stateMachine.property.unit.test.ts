import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { backoffMs } from '../../src/jobs/retryPolicy.js';
import {
  ATTEMPT_TRANSITIONS,
  LIVE_ATTEMPT_STATES,
  refuseStart,
  settleAfterAttempt,
} from '../../src/jobs/stateMachine.js';
import { type Command, type Machine, newMachine, step } from './jobMachine.js';

const n = fc.integer({ min: 1, max: 6 });
const command: fc.Arbitrary<Command> = fc.oneof(
  fc.constant({ kind: 'start' } as const),
  n.map((n) => ({ kind: 'run', n }) as const),
  n.map((n) => ({ kind: 'complete', n }) as const),
  n.map((n) => ({ kind: 'fail', n }) as const),
  n.map((n) => ({ kind: 'timeout', n }) as const),
  n.map((n) => ({ kind: 'leaseExpired', n }) as const),
  n.map((n) => ({ kind: 'abandon', n }) as const),
  fc.constant({ kind: 'cancel' } as const),
);

const live = (m: Machine) => m.attempts.filter((a) => LIVE_ATTEMPT_STATES.includes(a.state));

describe('attempt state machine', () => {
  it('under any interleaving: at most one winner, versions only grow, exclusive jobs never overlap or start past an unknown', () => {
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.integer({ min: 1, max: 5 }),
        fc.array(command, { maxLength: 60 }),
        (exclusive, maxAttempts, commands) => {
          let m = newMachine(exclusive, maxAttempts);
          for (const cmd of commands) {
            const before = m;
            const { machine, result } = step(m, cmd);
            m = machine;
            // At most one winner, and the job's winner is that attempt.
            const winners = m.attempts.filter((a) => a.state === 'succeeded');
            expect(winners.length).toBeLessThanOrEqual(1);
            expect(m.job.completedBy).toBe(winners[0]?.n ?? null);
            expect(m.job.state === 'succeeded').toBe(winners.length === 1);
            // The version never goes back, and moves on whenever the job completes, fails, is cancelled or an attempt is abandoned.
            expect(m.job.version).toBeGreaterThanOrEqual(before.job.version);
            if (result.ok && ['won', 'abandoned', 'cancelled'].includes(result.outcome))
              expect(m.job.version).toBeGreaterThan(before.job.version);
            if (m.job.state === 'failed' && before.job.state !== 'failed')
              expect(m.job.version).toBeGreaterThan(before.job.version);
            // Every attempt moved along a legal edge.
            for (const a of m.attempts) {
              const old = before.attempts.find((b) => b.n === a.n);
              if (old && old.state !== a.state) expect(ATTEMPT_TRANSITIONS[old.state]).toContain(a.state);
            }
            if (exclusive) {
              expect(live(m).length).toBeLessThanOrEqual(1);
              if (cmd.kind === 'start' && live(before).some((a) => a.state === 'unknown')) {
                expect(result).toEqual({ ok: false, refusal: 'attempt_outcome_unknown' });
              }
              // An exclusive job with an unknown attempt is itself unknown (or already closed).
              if (live(m).some((a) => a.state === 'unknown'))
                expect(['unknown', 'cancelled', 'succeeded']).toContain(m.job.state);
            }
            // Terminal jobs stay terminal.
            if (['succeeded', 'failed', 'cancelled'].includes(before.job.state))
              expect(m.job.state).toBe(before.job.state);
            // No more attempts than allowed.
            expect(m.attempts.length).toBeLessThanOrEqual(maxAttempts);
          }
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('a late result after abandon or cancel is discarded, never a win', () => {
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.constantFrom<'abandon' | 'cancel'>('abandon', 'cancel'),
        (exclusive, how) => {
          let m = newMachine(exclusive, 3);
          m = step(m, { kind: 'start' }).machine;
          m = step(m, { kind: 'run', n: 1 }).machine;
          m = step(m, { kind: 'timeout', n: 1 }).machine;
          m = step(m, how === 'abandon' ? { kind: 'abandon', n: 1 } : { kind: 'cancel' }).machine;
          const late = step(m, { kind: 'complete', n: 1 });
          expect(late.result).toEqual({ ok: true, outcome: 'discarded' });
          expect(late.machine.job.completedBy).toBeNull();
        },
      ),
    );
  });

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
