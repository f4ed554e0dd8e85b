// Wake-ups leave the writing transactions: a transaction that NOTIFYs commits under a
// global lock, so job intake and settlement must not notify. The engine notifies after
// commit instead, and the long-poll listener reads the batched job ids.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Onejob } from '../../src/createOnejob.js';
import { NotificationHub } from '../../src/events/notificationHub.js';
import { JOB_SETTLED_CHANNEL, OUTBOX_CHANNEL, Wakeups } from '../../src/events/wakeups.js';
import { cancelJob } from '../../src/jobs/cancelJob.js';
import { publishEvent } from '../../src/outbox/publishEvent.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';
import { until } from '../helpers/until.js';
import { configWith, engine } from './outboxTestKit.js';

let db: TestDatabase;
let pool: pg.Pool;
let onejob: Onejob;
let listener: pg.Client;
const heard: { channel: string; payload: string }[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  pool = new pg.Pool({ connectionString: db.url });
  // A registered publisher, so outbox inserts fan out to delivery rows as in production.
  await pool.query(`INSERT INTO onejob.outbox_publishers (name, kind) VALUES ('test', 'log')`);
  onejob = engine(db.url, configWith({ publishers: [{ kind: 'log', name: 'test' }] }));
  listener = new pg.Client({ connectionString: db.url });
  await listener.connect();
  listener.on('notification', (m) => heard.push({ channel: m.channel, payload: m.payload ?? '' }));
  await listener.query(`LISTEN ${OUTBOX_CHANNEL}`);
  await listener.query(`LISTEN ${JOB_SETTLED_CHANNEL}`);
});
afterAll(async () => {
  await listener?.end();
  await onejob?.close();
  await pool?.end();
  await db?.drop();
});

/**
 * Everything heard since `from` (an index into `heard`) and before a marker sent now.
 * Notifications reach a listener in commit order, so once the marker arrives every
 * earlier notification has arrived too.
 */
async function heardBeforeMarker(from = heard.length): Promise<{ channel: string; payload: string }[]> {
  const marker = `marker-${randomUUID()}`;
  await pool.query('SELECT pg_notify($1, $3), pg_notify($2, $3)', [
    OUTBOX_CHANNEL,
    JOB_SETTLED_CHANNEL,
    marker,
  ]);
  await until('the markers', async () => heard.filter((h) => h.payload === marker).length === 2);
  return heard.slice(from).filter((h) => h.payload !== marker);
}

const request = (key: string) => ({
  ownerId: 'shop',
  idempotencyKey: key,
  operation: 'charge',
  input: { amount: 5 },
});

describe('wake-ups after commit', () => {
  it('a transaction that creates a job, writes an event and cancels a job commits without notifying', async () => {
    await heardBeforeMarker();
    const from = heard.length;
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const { job } = await onejob.jobs.create(request(`k-${randomUUID()}`), { tx: client });
      await publishEvent(client, { type: 'shop.order.paid', subject: 'order-1' });
      await cancelJob(client, { jobId: job.id, ownerId: 'shop' });
      await client.query('COMMIT');
      const { rows } = await pool.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM onejob.outbox_deliveries WHERE subject IN ($1, $2)',
        [job.id, 'order-1'],
      );
      // The trigger still fans out (created, cancelled, the order event)...
      expect(rows[0]!.n).toBe(3);
    } finally {
      client.release();
    }
    // ...but nothing was notified by the transaction itself, nor by the engine for a caller's tx.
    expect(await heardBeforeMarker(from)).toEqual([]);
  });

  it('jobs.create and outbox.publish wake relays after their commit; cancel wakes the long-polls of that job', async () => {
    await heardBeforeMarker();
    const { job } = await onejob.jobs.create(request(`k-${randomUUID()}`));
    await until('the relay wake-up after create', async () =>
      heard.some((h) => h.channel === OUTBOX_CHANNEL),
    );

    heard.length = 0;
    await onejob.outbox.publish({ type: 'shop.order.paid', subject: 'order-2' });
    await until('the relay wake-up after publish', async () =>
      heard.some((h) => h.channel === OUTBOX_CHANNEL),
    );

    heard.length = 0;
    await onejob.attempts.cancel('shop', job.id);
    await until('the settled wake-up naming the job', async () =>
      heard.some((h) => h.channel === JOB_SETTLED_CHANNEL && h.payload.split(',').includes(job.id)),
    );
  });

  it('wake-ups asked for in one turn share one notification: every id, each payload under 8000 bytes', async () => {
    // The engine's own wake-ups from the tests above are out of the way first.
    await onejob.wakeups.flush();
    await heardBeforeMarker();
    const from = heard.length;
    const wakeups = new Wakeups(pool);
    const ids = Array.from({ length: 500 }, () => randomUUID());
    for (const id of ids) wakeups.jobSettled(id);
    await wakeups.flush();
    const got = await heardBeforeMarker(from);
    const settled = got.filter((h) => h.channel === JOB_SETTLED_CHANNEL);
    for (const h of settled) expect(Buffer.byteLength(h.payload)).toBeLessThan(8000);
    expect(settled.flatMap((h) => h.payload.split(',')).sort()).toEqual([...ids].sort());
    // 500 ids of 37 bytes need three payloads; one relay wake-up for all of them.
    expect(settled).toHaveLength(3);
    expect(got.filter((h) => h.channel === OUTBOX_CHANNEL)).toHaveLength(1);
    await wakeups.close();
  });

  it("a settlement's two wake-ups, long-polls and relays, go out in one notification transaction", async () => {
    const sent: string[][] = [];
    const counting = {
      query: (config: { text: string; values: unknown[] }) => {
        sent.push(config.values[0] as string[]);
        return pool.query(config);
      },
    } as unknown as pg.Pool;
    const wakeups = new Wakeups(counting);
    const from = heard.length;
    const id = randomUUID();
    wakeups.jobSettled(id);
    await wakeups.flush();
    expect(sent).toEqual([[JOB_SETTLED_CHANNEL, OUTBOX_CHANNEL]]);
    const got = await heardBeforeMarker(from);
    expect(got).toEqual([
      { channel: JOB_SETTLED_CHANNEL, payload: id },
      { channel: OUTBOX_CHANNEL, payload: '' },
    ]);
    await wakeups.close();
  });

  it('wake-ups that each arrive just after the previous notification went out still leave one interval apart', async () => {
    // A busy worker settles a batch every millisecond or two, each just after the last
    // notification committed: those must wait out the interval rather than each start a
    // transaction of their own.
    const interval = 50;
    const sentAt: number[] = [];
    const timing = {
      query: (config: unknown) => {
        sentAt.push(performance.now());
        return pool.query(config as pg.QueryConfig);
      },
    } as unknown as pg.Pool;
    const wakeups = new Wakeups(timing, { minIntervalMs: interval });
    for (let i = 0; i < 6; i++) {
      wakeups.jobSettled(randomUUID());
      await wakeups.flush();
    }
    expect(sentAt).toHaveLength(6);
    // Timers may fire up to a millisecond early by the clock's rounding; never more.
    for (let i = 1; i < sentAt.length; i++)
      expect(sentAt[i]! - sentAt[i - 1]!).toBeGreaterThanOrEqual(interval - 2);
    await wakeups.close();
  });

  it('a long-poll waiting on one job wakes on a list of settled ids that names it', async () => {
    const settled = new NotificationHub(pool, { connectionString: db.url });
    try {
      const id = randomUUID();
      let woke = false;
      const started = Date.now();
      const waiting = settled.waitForJob(id, 20_000).then(() => {
        woke = true;
      });
      // The listener connects on first use; send until it has heard one.
      while (!woke) {
        await pool.query('SELECT pg_notify($1, $2)', [
          JOB_SETTLED_CHANNEL,
          `${randomUUID()},${id},${randomUUID()}`,
        ]);
        await Promise.race([waiting, new Promise((r) => setTimeout(r, 50))]);
      }
      expect(Date.now() - started).toBeLessThan(20_000);
    } finally {
      await settled.close();
    }
  });
});
