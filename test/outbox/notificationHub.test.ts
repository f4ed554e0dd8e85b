// One LISTEN connection per process: the relay's loops and the long-polls share the
// notification hub's connection, and it comes back by itself after it is cut.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Onejob } from '../../src/createOnejob.js';
import { JOB_SETTLED_CHANNEL } from '../../src/events/wakeups.js';
import type { Publisher } from '../../src/outbox/publisher.js';
import { type Relay, startRelay } from '../../src/outbox/startRelay.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';
import { until } from '../helpers/until.js';
import { configWith, engine } from './outboxTestKit.js';

let db: TestDatabase;
let pool: pg.Pool;
let onejob: Onejob;
let relay: Relay;
const published: string[] = [];

/** A publisher that records what it was given, so the test sees the relay woken. */
const recording: Publisher = {
  name: 'recording',
  kind: 'log',
  concurrency: 1,
  async publish(delivery) {
    published.push(delivery.id);
    return { duplicate: false };
  },
  async close() {},
};

beforeAll(async () => {
  db = await createTestDatabase();
  pool = new pg.Pool({ connectionString: db.url });
  // A poll far longer than the test: only a notification can wake the relay.
  onejob = engine(db.url, configWith({ publishers: [], pollMs: 600_000 }));
  relay = await startRelay(onejob, { publishers: [recording] });
});
afterAll(async () => {
  await relay?.stop();
  await onejob?.close();
  await pool?.end();
  await db?.drop();
});

/** Sessions that listen: the hub's, and any other whose last statement was a LISTEN. */
const listenConnections = async () => {
  const { rows } = await pool.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity
     WHERE datname = current_database() AND (application_name = 'onejob-listen' OR query ILIKE 'LISTEN%')`,
  );
  return rows.map((r) => r.pid);
};

describe('the notification hub', () => {
  it('serves the relay and the long-polls of a process on one LISTEN connection', async () => {
    const id = randomUUID();
    let woke = false;
    const waiting = onejob.wakeups.waitForJob(id, 20_000).then(() => {
      woke = true;
    });
    await until('the listen connection', async () => (await listenConnections()).length === 1 || undefined);
    // Sent until heard: the job channel is listened to once the first waiter asked for it.
    while (!woke) {
      await pool.query('SELECT pg_notify($1, $2)', [JOB_SETTLED_CHANNEL, id]);
      await Promise.race([waiting, new Promise((r) => setTimeout(r, 50))]);
    }
    const { event } = await onejob.outbox.publish({ type: 'shop.order.paid', subject: 'order-1' });
    await until('the relay woken by the notification', async () => published.includes(event.id) || undefined);
    expect(await listenConnections()).toHaveLength(1);
  });

  it('comes back after its connection is cut, and the relay is woken through the new one', async () => {
    const [pid] = await listenConnections();
    await pool.query('SELECT pg_terminate_backend($1)', [pid]);
    await until('a new listen connection', async () => {
      const pids = await listenConnections();
      return (pids.length === 1 && pids[0] !== pid) || undefined;
    });
    const { event } = await onejob.outbox.publish({ type: 'shop.order.paid', subject: 'order-2' });
    await until('the relay woken after the reconnect', async () => published.includes(event.id) || undefined);
  });

  it('after it reconnects, every waiting long-poll re-reads at once instead of waiting for a lost notification', async () => {
    const [pid] = await listenConnections();
    let woke = false;
    // Far longer than the test: only the hub's "look now" after reconnecting can end it.
    const waiting = onejob.wakeups.waitForJob(randomUUID(), 600_000).then(() => {
      woke = true;
    });
    await pool.query('SELECT pg_terminate_backend($1)', [pid]);
    await waiting;
    expect(woke).toBe(true);
    const pids = await listenConnections();
    expect(pids).toHaveLength(1);
    expect(pids[0]).not.toBe(pid);
  });
});
