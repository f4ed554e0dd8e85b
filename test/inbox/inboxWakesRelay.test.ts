// An accepted delivery commits its job and the job's created event; the relay must hear of
// it at once, as it does for a create or a publish, not at its next poll. The relay here
// polls once an hour, so the event can only be published because the acceptance woke it,
// and the test listens for that wake-up itself.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Onejob } from '../../src/createOnejob.js';
import { OUTBOX_CHANNEL } from '../../src/events/wakeups.js';
import { paymentsSource, signedDelivery, webhookSigner } from '../helpers/standardWebhooks.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';
import { until } from '../helpers/until.js';
import { configWith, engine } from '../outbox/outboxTestKit.js';

const webhook = webhookSigner('ONEJOB_TEST_WAKE_SECRET');
const HOUR = 3_600_000;

let db: TestDatabase;
let onejob: Onejob;
let listener: pg.Client;
const heard: string[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  onejob = engine(db.url, {
    ...configWith({ publishers: [{ kind: 'log', name: 'wake-log' }], pollMs: HOUR }),
    inbox: { sources: { payments: paymentsSource('ONEJOB_TEST_WAKE_SECRET') } },
  });
  listener = new pg.Client({ connectionString: db.url });
  await listener.connect();
  listener.on('notification', (m) => {
    if (m.channel === OUTBOX_CHANNEL) heard.push(m.payload ?? '');
  });
  await listener.query(`LISTEN ${OUTBOX_CHANNEL}`);
  await onejob.start({ roles: ['relay'] });
});
afterAll(async () => {
  await listener?.end();
  await onejob?.close();
  await db?.drop();
});

const published = async (subject: string) => {
  const { rows } = await onejob.pool.query<{ state: string }>(
    `SELECT state FROM onejob.outbox_deliveries WHERE subject = $1 AND publisher = 'wake-log'`,
    [subject],
  );
  return rows.length === 1 && rows[0]!.state === 'published';
};

/** Waits until everything notified before now has arrived (notifications come in commit order). */
async function drained(): Promise<void> {
  const marker = `marker-${randomBytes(4).toString('hex')}`;
  await onejob.pool.query('SELECT pg_notify($1, $2)', [OUTBOX_CHANNEL, marker]);
  await until('the marker', async () => heard.includes(marker));
  heard.length = 0;
}

describe('inbox acceptance wakes the relay after its commit', () => {
  it("an accepted delivery's job event is published at once, by the wake-up, not by the hourly poll", async () => {
    // The relay is up and idle: an event of our own goes out by its own wake-up first.
    const first = await onejob.outbox.publish({ type: 'shop.ready', subject: 'ready-1' });
    await until('the first event published', () => published(first.event.subject!));
    await onejob.wakeups.flush();
    await drained();

    const id = `evt_${randomBytes(6).toString('hex')}`;
    const body = JSON.stringify({ amount: 7 });
    const at = new Date();
    const answer = await onejob.inbox.receive('payments', signedDelivery(webhook, id, body, at));
    expect(answer).toMatchObject({ status: 202, replayed: false });
    await until('the wake-up after the acceptance', async () => heard.some((p) => !p.startsWith('marker-')));
    await until("the delivery's job event published", () => published(answer.body.jobId));

    // A redelivery commits no outbox row and wakes nobody.
    await onejob.wakeups.flush();
    await drained();
    const again = await onejob.inbox.receive('payments', signedDelivery(webhook, id, body, at));
    expect(again).toMatchObject({ replayed: true, body: answer.body });
    await onejob.wakeups.flush();
    const marker = `marker-${randomBytes(4).toString('hex')}`;
    await onejob.pool.query('SELECT pg_notify($1, $2)', [OUTBOX_CHANNEL, marker]);
    await until('the marker', async () => heard.includes(marker));
    expect(heard.filter((p) => !p.startsWith('marker-'))).toEqual([]);
  });
});
