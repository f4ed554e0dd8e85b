// A new job wakes an idle worker: intake announces it after commit (in this process at
// once, to others through the relays' channel), and an idle claim loop takes the
// announcement. The worker here polls once an hour, so a job queued while it waits can
// only run because the announcement woke it (the hub's own tests: jobAnnouncements.test.ts).
import { describe, expect, it } from 'vitest';
import { createJob, hourlyPollingAppPerFile, jobInState } from './attemptTestKit.js';

const app = hourlyPollingAppPerFile();

describe('a new job wakes an idle worker', () => {
  it('jobs created while the worker waits out an hour-long poll run at once, one after another', async () => {
    // Each job is created only after the one before settled, so the worker is idle and
    // back in its pause every time: three hour-long polls unless the creates wake it.
    for (const n of [1, 2, 3]) {
      const job = await createJob(app.t, `wake-${n}`, 'charge', { amount: n });
      const settled = await jobInState(app.t, job.id, 'succeeded', 20_000);
      expect(settled.attempts).toHaveLength(1);
    }
    expect(app.fake.requests.length).toBe(3);
  });
});
