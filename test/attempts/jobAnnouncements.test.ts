// New jobs are announced after their commit, and an announcement wakes one idle worker
// of a process, not every listener: the hub hands it to one watcher that has a free slot,
// at once in the process that committed the jobs (skipping the echo of its own
// notification), and through PostgreSQL in the others. Settlements and published events
// notify the relays' channel too, but wake no worker. Two hubs stand for two processes;
// newJobWakesWorker.test.ts has the worker itself woken by a job created through the API.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotificationHub } from '../../src/events/notificationHub.js';
import { OUTBOX_CHANNEL } from '../../src/events/wakeups.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';
import { until } from './attemptTestKit.js';

let db: TestDatabase;
let pool: pg.Pool;
const hubs: NotificationHub[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  pool = new pg.Pool({ connectionString: db.url });
});
afterAll(async () => {
  for (const hub of hubs) await hub.close();
  await pool?.end();
  await db?.drop();
});

function hub(): NotificationHub {
  const h = new NotificationHub(pool, { connectionString: db.url });
  hubs.push(h);
  return h;
}

/** A watcher that counts its wake-ups and answers `free` (false: no free slot). */
function watcher(free = true) {
  const w = { woken: 0, free, fn: () => false };
  w.fn = () => {
    w.woken += 1;
    return w.free;
  };
  return w;
}

/**
 * Waits until `h` has heard a marker sent now on the outbox channel: notifications reach a
 * listener in commit order, so everything notified before it has been handled by then.
 */
async function drained(h: NotificationHub, ...senders: NotificationHub[]): Promise<void> {
  for (const s of senders) await s.flush();
  const marker = `marker-${randomUUID()}`;
  let seen = false;
  const stop = await h.listen(OUTBOX_CHANNEL, (payload) => {
    if (payload === marker) seen = true;
  });
  try {
    await pool.query('SELECT pg_notify($1, $2)', [OUTBOX_CHANNEL, marker]);
    await until('the marker notification', async () => seen);
  } finally {
    await stop();
  }
}

describe('announcements of new jobs', () => {
  it('jobs queued in a process wake one of its idle watchers at once, and the echo of its own notification wakes none', async () => {
    const here = hub();
    const a = watcher();
    const b = watcher();
    await here.listenForJobs(a.fn);
    await here.listenForJobs(b.fn);
    await drained(here);
    const before = a.woken + b.woken;

    here.jobsQueued();
    expect(a.woken + b.woken - before).toBe(1);
    await drained(here, here);
    expect(a.woken + b.woken - before).toBe(1);

    // The next announcement goes to the other watcher: they take turns.
    here.jobsQueued();
    expect(a.woken).toBeGreaterThan(0);
    expect(b.woken).toBeGreaterThan(0);
    // Its notification goes out now, not into the next test's listening hubs.
    await drained(here, here);
  });

  it("another process's announcement wakes one watcher; a watcher with no free slot declines and the next one takes it", async () => {
    const sender = hub();
    const receiver = hub();
    const busy = watcher(false);
    const idle = watcher(true);
    await receiver.listenForJobs(busy.fn);
    await receiver.listenForJobs(idle.fn);
    await drained(receiver);
    const [busyBefore, idleBefore] = [busy.woken, idle.woken];

    sender.jobsQueued();
    await drained(receiver, sender);
    expect(idle.woken - idleBefore).toBe(1);
    expect(busy.woken - busyBefore).toBeLessThanOrEqual(1);

    // Every watcher busy: each is asked once, and none claims.
    idle.free = false;
    const [b2, i2] = [busy.woken, idle.woken];
    sender.jobsQueued();
    await drained(receiver, sender);
    expect(busy.woken - b2).toBe(1);
    expect(idle.woken - i2).toBe(1);
  });

  it('a settlement or a published event notifies the relays but wakes no worker', async () => {
    const sender = hub();
    const receiver = hub();
    const w = watcher();
    const relayHeard: (string | null)[] = [];
    await receiver.listenForJobs(w.fn);
    const stopRelay = await receiver.listen(OUTBOX_CHANNEL, (payload) => relayHeard.push(payload));
    await drained(receiver);
    const before = w.woken;
    relayHeard.length = 0;

    sender.jobSettled(randomUUID());
    sender.outbox();
    await drained(receiver, sender);
    expect(w.woken - before).toBe(0);
    // The relay heard them (beside the marker).
    expect(relayHeard.filter((p) => p !== null && !p.startsWith('marker-')).length).toBeGreaterThan(0);
    await stopRelay();
  });

  it('a watcher that stops listening is woken no more', async () => {
    const here = hub();
    const w = watcher();
    const stop = await here.listenForJobs(w.fn);
    await drained(here);
    await stop();
    const before = w.woken;
    here.jobsQueued();
    expect(w.woken).toBe(before);
  });
});
