// The group-commit queue alone, with a batch function that records what it was given:
// who goes together, who waits, and that no caller is ever left without an answer.
import { describe, expect, it } from 'vitest';
import { createGroupCommit, groupByKey, type Pending } from '../../src/db/groupCommit.js';

/** A batch function whose batches stay in flight until the test releases them. */
function heldBatches() {
  const batches: { items: number[]; release: () => void }[] = [];
  const run = (batch: Pending<number, string>[]) =>
    new Promise<void>((resolve) => {
      batches.push({
        items: batch.map((p) => p.item),
        release: () => {
          for (const p of batch) p.resolve(`done ${p.item}`);
          resolve();
        },
      });
    });
  return { batches, run };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('group-commit queue', () => {
  it('requests submitted in one tick with nothing in flight go together at once, in order', async () => {
    const { batches, run } = heldBatches();
    const q = createGroupCommit(run, { maxBatchSize: 10, maxWaitMs: 1_000 });
    const answers = [1, 2, 3].map((i) => q.submit(i));
    await tick();
    expect(batches.map((b) => b.items)).toEqual([[1, 2, 3]]);
    batches[0]!.release();
    expect(await Promise.all(answers)).toEqual(['done 1', 'done 2', 'done 3']);
  });

  it('a full batch goes at once and the rest is split at maxBatchSize', async () => {
    const { batches, run } = heldBatches();
    const q = createGroupCommit(run, { maxBatchSize: 2, maxWaitMs: 1_000, maxInFlight: 10 });
    const answers = [1, 2, 3, 4, 5].map((i) => q.submit(i));
    await tick();
    expect(batches.map((b) => b.items)).toEqual([[1, 2], [3, 4], [5]]);
    for (const b of batches) b.release();
    expect(await Promise.all(answers)).toHaveLength(5);
  });

  it('while a batch is in flight, later requests gather and go when it returns', async () => {
    const { batches, run } = heldBatches();
    const q = createGroupCommit(run, { maxBatchSize: 10, maxWaitMs: 60_000, maxInFlight: 1 });
    const first = q.submit(1);
    await tick();
    const later = [2, 3, 4].map((i) => q.submit(i));
    await tick();
    expect(batches.map((b) => b.items)).toEqual([[1]]);
    batches[0]!.release();
    await first;
    await tick();
    expect(batches.map((b) => b.items)).toEqual([[1], [2, 3, 4]]);
    batches[1]!.release();
    expect(await Promise.all(later)).toEqual(['done 2', 'done 3', 'done 4']);
  });

  it('with room in flight, a gathering request waits at most maxWaitMs', async () => {
    const { batches, run } = heldBatches();
    const q = createGroupCommit(run, { maxBatchSize: 10, maxWaitMs: 5, maxInFlight: 2 });
    void q.submit(1);
    await tick();
    const second = q.submit(2);
    await new Promise((r) => setTimeout(r, 50));
    expect(batches.map((b) => b.items)).toEqual([[1], [2]]);
    batches[1]!.release();
    expect(await second).toBe('done 2');
    batches[0]!.release();
  });

  it("each settled batch reports its size, its oldest request's wait and its own duration", async () => {
    const { batches, run } = heldBatches();
    const seen: { size: number; waitedMs: number; tookMs: number }[] = [];
    const q = createGroupCommit(run, {
      maxBatchSize: 10,
      maxWaitMs: 60_000,
      maxInFlight: 1,
      observe: (b) => seen.push(b),
    });
    const first = q.submit(1);
    await tick();
    const later = [2, 3].map((i) => q.submit(i));
    await new Promise((r) => setTimeout(r, 30));
    batches[0]!.release();
    await first;
    await tick();
    batches[1]!.release();
    await Promise.all(later);
    expect(seen.map((b) => b.size)).toEqual([1, 2]);
    // The first batch was held 30 ms; the second's oldest request waited all that time.
    expect(seen[0]!.tookMs).toBeGreaterThanOrEqual(25);
    expect(seen[1]!.waitedMs).toBeGreaterThanOrEqual(25);
    expect(seen[0]!.waitedMs).toBeLessThan(seen[1]!.waitedMs);
  });

  it('a batch function that throws rejects every request of its batch with that error', async () => {
    const q = createGroupCommit<number, string>(async () => {
      throw new Error('statement failed');
    });
    const answers = await Promise.allSettled([q.submit(1), q.submit(2)]);
    expect(answers.map((a) => a.status === 'rejected' && (a.reason as Error).message)).toEqual([
      'statement failed',
      'statement failed',
    ]);
  });

  it('a request the batch function forgot to answer is rejected, never left waiting', async () => {
    const q = createGroupCommit<number, string>(async (batch) => {
      batch[0]!.resolve('answered');
    });
    const [a, b] = await Promise.allSettled([q.submit(1), q.submit(2)]);
    expect(a).toEqual({ status: 'fulfilled', value: 'answered' });
    expect(b.status === 'rejected' && (b.reason as Error).message).toMatch(/without answering/);
  });

  it('a request is settled once: a later resolve or reject of it is ignored', async () => {
    const q = createGroupCommit<number, string>(async (batch) => {
      for (const p of batch) {
        p.resolve('first');
        p.reject(new Error('second'));
        p.resolve('third');
      }
    });
    expect(await q.submit(1)).toBe('first');
  });
});

describe('groupByKey', () => {
  it('one group per key, in order of first arrival, each keeping arrival order', () => {
    const items = ['a1', 'b1', 'a2', 'c1', 'b2', 'a3'];
    expect(groupByKey(items, (x) => x[0]!)).toEqual([['a1', 'a2', 'a3'], ['b1', 'b2'], ['c1']]);
  });
});
