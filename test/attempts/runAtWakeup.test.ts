// A job created with runAt is not started before it, and starts when it comes due without
// waiting for a poll: the worker here polls once an hour, so only its wake-up at the next
// due job (claimLoop.ts, untilNextDue.ts) can start the job. How soon after its time is a
// measurement (bench/runAtLatency.ts), not an assertion here.
import { describe, expect, it } from 'vitest';
import { postJob } from '../helpers/startTestApp.js';
import { hourlyPollingAppPerFile, jobInState } from './attemptTestKit.js';

const app = hourlyPollingAppPerFile();

async function create(key: string, runAt: string): Promise<{ id: string; runAt: string }> {
  const r = await postJob(app.t, key, { operation: 'charge', input: { key }, runAt });
  expect(r.status).toBe(202);
  return (await r.json()) as { id: string; runAt: string };
}

const callsFor = (key: string) =>
  app.fake.calls().filter((c) => (c.body as { input?: { key?: string } } | undefined)?.input?.key === key);

describe('jobs that wait for their time', () => {
  it('a job with runAt in 3 s: the provider gets no call before it, and the job succeeds after', async () => {
    const runAt = new Date(Date.now() + 3_000).toISOString();
    const job = await create('in-3s', runAt);
    const settled = await jobInState(app.t, job.id, 'succeeded', 30_000);
    const calls = callsFor('in-3s');
    expect(calls).toHaveLength(1);
    expect(calls[0]!.receivedAt).toBeGreaterThanOrEqual(Date.parse(runAt));
    // The database's own record: the attempt began at or after the instant asked.
    expect(Date.parse(settled.attempts[0]!.startedAt)).toBeGreaterThanOrEqual(Date.parse(runAt));
    expect(settled.runAt).toBe(runAt);
  });

  it('a job created while another waits, due before it, wakes the worker for its own earlier time', async () => {
    const later = await create('later', new Date(Date.now() + 60_000).toISOString());
    // The worker now sleeps until `later` is due; this one is due in a second.
    const soonAt = new Date(Date.now() + 1_000).toISOString();
    const soon = await create('sooner', soonAt);
    await jobInState(app.t, soon.id, 'succeeded', 30_000);
    expect(callsFor('sooner')[0]!.receivedAt).toBeGreaterThanOrEqual(Date.parse(soonAt));
    expect(callsFor('later')).toHaveLength(0);
    const waiting = (await (await app.t.request(`/v1/jobs/${later.id}`)).json()) as { state: string };
    expect(waiting.state).toBe('queued');
  });

  it('a past runAt runs at once', async () => {
    const job = await create('past', '2001-01-01T00:00:00Z');
    const settled = await jobInState(app.t, job.id, 'succeeded', 30_000);
    expect(settled.runAt).toBe('2001-01-01T00:00:00.000Z');
    expect(callsFor('past')).toHaveLength(1);
  });
});
