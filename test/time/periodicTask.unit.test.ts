// The one background loop (src/time/periodicTask.ts) under the worker's housekeeping, the
// cost poster and the watch over code attempts. Driven by fake timers and a gate, never
// by sleeping.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { periodicTask } from '../../src/time/periodicTask.js';

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

describe('periodicTask', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('never starts a run while one is in progress: the next waits ms after the last ends', async () => {
    const slow = gate();
    let runs = 0;
    const task = periodicTask(100, async () => {
      runs++;
      if (runs === 1) await slow.opened;
    });
    task.start();
    await vi.advanceTimersByTimeAsync(100);
    expect(runs).toBe(1);
    task.start();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(runs).toBe(1);
    slow.open();
    await vi.advanceTimersByTimeAsync(99);
    expect(runs).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(runs).toBe(2);
    await task.stop();
  });

  it('stop() waits for the run in progress, and no run starts after it', async () => {
    const slow = gate();
    let runs = 0;
    let ended = false;
    const task = periodicTask(100, async () => {
      runs++;
      await slow.opened;
      ended = true;
    });
    task.start();
    await vi.advanceTimersByTimeAsync(100);
    let stopped = false;
    const stopping = task.stop().then(() => {
      stopped = true;
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    slow.open();
    await stopping;
    expect(ended).toBe(true);
    task.start();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(runs).toBe(1);
  });

  it('an idle task schedules nothing until started again, and a failed run does not end the loop', async () => {
    let work = 0;
    let runs = 0;
    const task = periodicTask(
      100,
      async () => {
        runs++;
        work--;
        if (runs === 1) throw new Error('the database went away');
      },
      { idle: () => work <= 0 },
    );
    task.start();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(runs).toBe(0);
    work = 2;
    task.start();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(runs).toBe(2);
    await task.stop();
  });
});
