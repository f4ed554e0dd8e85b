// A job's public event stores no CloudEvent: every field of it is on the event row, and
// the relay builds it when it reads the row (onejob.cloud_event, migration 0023). What a
// broker receives is the document cloudEvent() would have built and stored, field by
// field; a row that does carry a CloudEvent (written before 0023, or an event of your own)
// is sent as stored.
import pg from 'pg';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cloudEvent } from '../../src/events/cloudEvent.js';
import { recordJobEvent } from '../../src/events/recordJobEvent.js';
import { publishEvent } from '../../src/outbox/publishEvent.js';
import { eventJson, type OutboxEvent, type Publisher } from '../../src/outbox/publisher.js';
import { registerPublishers } from '../../src/outbox/registerPublishers.js';
import { relayBatch } from '../../src/outbox/relayBatch.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';

let db: TestDatabase;
let pool: pg.Pool;
const sent = new Map<string, unknown>();
const publisher: Publisher = {
  name: 'built',
  kind: 'test',
  concurrency: 4,
  async publish(e: OutboxEvent) {
    sent.set(e.id, JSON.parse(eventJson(e)));
    return {};
  },
  async close() {},
};

beforeAll(async () => {
  db = await createTestDatabase();
  pool = new pg.Pool({ connectionString: db.url, max: 4 });
  await registerPublishers(pool, [publisher]);
});
afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

async function newJob(): Promise<string> {
  const id = uuidv7();
  await pool.query(
    `INSERT INTO onejob.jobs (id, owner_id, idempotency_key, fingerprint, operation, input)
     VALUES ($1::uuid, 'o', $1::text, 'f', 'op', '{}')`,
    [id],
  );
  return id;
}

async function relayAll(): Promise<void> {
  for (let i = 0; i < 20; i++)
    if (
      (await relayBatch(pool, publisher, { maxDeliveries: 3, retryBaseMs: 1, retryMaxMs: 1 }, 100))
        .claimed === 0
    )
      return;
  throw new Error('the relay never ran dry');
}

describe('CloudEvents built from the event row', () => {
  it("a job's public event stores no CloudEvent and is sent as the document cloudEvent() builds", async () => {
    const jobId = await newJob();
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const data = { state: 'cancelled', version: 2, reason: null, nested: { keep: [1, null] } };
    const withTrace = await recordJobEvent(pool, {
      jobId,
      type: 'cancelled',
      data,
      publish: 'onejob.job.cancelled',
      traceparent,
    });
    const without = await recordJobEvent(pool, {
      jobId,
      type: 'noted',
      data: { n: 1 },
      publish: 'onejob.job.noted',
    });
    const auditOnly = await recordJobEvent(pool, { jobId, type: 'race_lost', data: {} });
    await relayAll();

    const { rows } = await pool.query<{
      id: string;
      event: unknown;
      traceparent: string | null;
      created_at: Date;
    }>('SELECT id, event, traceparent, created_at FROM onejob.job_events WHERE job_id = $1', [jobId]);
    const row = new Map(rows.map((r) => [r.id, r]));
    expect(rows.map((r) => r.event)).toEqual([null, null, null]);
    expect(sent.get(withTrace)).toEqual(
      cloudEvent({
        id: withTrace,
        type: 'onejob.job.cancelled',
        subject: jobId,
        data: { jobId, ...data },
        time: row.get(withTrace)!.created_at,
        traceparent,
      }),
    );
    expect(sent.get(without)).toEqual(
      cloudEvent({
        id: without,
        type: 'onejob.job.noted',
        subject: jobId,
        data: { jobId, n: 1 },
        time: row.get(without)!.created_at,
      }),
    );
    expect(sent.get(without)).not.toHaveProperty('traceparent');
    expect(sent.has(auditOnly)).toBe(false);
  });

  it('a row that carries its CloudEvent, an older job event or an event of your own, is sent as stored', async () => {
    const jobId = await newJob();
    const older = uuidv7();
    const stored = {
      specversion: '1.0',
      id: older,
      type: 'onejob.job.created',
      subject: jobId,
      extra: 'kept',
    };
    await pool.query(
      `INSERT INTO onejob.job_events (id, job_id, owner_id, type, data, publish, event)
       VALUES ($1, $2, 'o', 'created', '{"state": "queued"}', 'onejob.job.created', $3)`,
      [older, jobId, stored],
    );
    const own = await publishEvent(pool, {
      ownerId: 'o',
      type: 'shop.order.paid',
      subject: 'order-7',
      data: { amount: 5 },
    });
    await relayAll();
    expect(sent.get(older)).toEqual(stored);
    expect(sent.get(own.event.id)).toEqual(own.event);
  });

  it('the log refuses a stored CloudEvent on an audit-only row, and an event of your own without one', async () => {
    const jobId = await newJob();
    await expect(
      pool.query(
        `INSERT INTO onejob.job_events (id, job_id, owner_id, type, event) VALUES ($1, $2, 'o', 'noted', '{}')`,
        [uuidv7(), jobId],
      ),
    ).rejects.toMatchObject({ constraint: 'job_events_event_is_public' });
    await expect(
      pool.query(
        `INSERT INTO onejob.job_events (id, owner_id, subject, type, publish) VALUES ($1, 'o', 's', 'x', 'x')`,
        [uuidv7()],
      ),
    ).rejects.toMatchObject({ constraint: 'job_events_own_carry_event' });
  });
});
