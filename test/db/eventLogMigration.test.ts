// Migration 0021 moves the outbox and its delivery rows into the event log: on a database
// at migration 0020 with undelivered, published and dead events and an archived job, every
// undelivered event is published after it, none that was published is published again,
// dead letters stay dead, and the archived job's history keeps each attempt once.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/migrate.js';
import { listJobEvents } from '../../src/jobs/jobHistory.js';
import { listDeadLetters } from '../../src/outbox/deadLetters.js';
import { publishEvent } from '../../src/outbox/publishEvent.js';
import type { OutboxEvent, Publisher } from '../../src/outbox/publisher.js';
import { relayBatch } from '../../src/outbox/relayBatch.js';
import { createEmptyDatabase, type TestDatabase } from '../helpers/testDatabase.js';

let db: TestDatabase;
let pool: pg.Pool;

const ID = {
  published: '0190a5c4-0000-7000-8000-000000000001',
  pending: '0190a5c4-0000-7000-8000-000000000002',
  dead: '0190a5c4-0000-7000-8000-000000000003',
  ownPending: '0190a5c4-0000-7000-8000-000000000004',
  ownPublished: '0190a5c4-0000-7000-8000-000000000005',
  started: '0190a5c4-0000-7000-8000-000000000006',
  job: '0190a5c4-0000-7000-8000-0000000000aa',
  archived: '0190a5c4-0000-7000-8000-0000000000bb',
  attempt: '0190a5c4-0000-7000-8000-0000000000cc',
};

beforeAll(async () => {
  db = await createEmptyDatabase();
  pool = new pg.Pool({ connectionString: db.url });
  // The schema of migration 0020, as the migrator leaves it.
  await migrate(db.url, { upTo: 20 });
  // One publisher; each outbox row fans out to its delivery row (the 0003 trigger).
  await pool.query(`INSERT INTO onejob.outbox_publishers (name, kind) VALUES ('p', 'test')`);
  const jobEvent = (id: string, jobId: string, type: string, attemptId: string | null = null) =>
    pool.query(
      `INSERT INTO onejob.job_events (id, job_id, owner_id, attempt_id, type, data) VALUES ($1, $2, 'o', $3, $4, '{}')`,
      [id, jobId, attemptId, type],
    );
  const outbox = (id: string, subject: string, type: string) =>
    pool.query(
      `INSERT INTO onejob.outbox (id, owner_id, subject, type, event)
       VALUES ($1::uuid, 'o', $2::text, $3::text, jsonb_build_object('id', $1::uuid, 'type', $3::text, 'subject', $2::text))`,
      [id, subject, type],
    );
  await jobEvent(ID.published, ID.job, 'created');
  await outbox(ID.published, ID.job, 'onejob.job.created');
  await jobEvent(ID.pending, ID.job, 'succeeded');
  await outbox(ID.pending, ID.job, 'onejob.job.succeeded');
  await jobEvent(ID.dead, ID.archived, 'created');
  await outbox(ID.dead, ID.archived, 'onejob.job.created');
  await outbox(ID.ownPending, 'order-1', 'shop.order.paid');
  await outbox(ID.ownPublished, 'order-2', 'shop.order.paid');
  // The archived job's attempt: its start is an audit row from before the migration, and
  // the archived document lists the attempt too.
  await jobEvent(ID.started, ID.archived, 'attempt_started', ID.attempt);
  await pool.query(
    `INSERT INTO onejob.jobs_archive (job_id, owner_id, doc) VALUES ($1, 'o', jsonb_build_object('attempts',
       jsonb_build_array(jsonb_build_object('id', $2::text, 'n', 1, 'provider', 'p', 'origin', 'worker',
                                            'startedAt', '2026-01-01T00:00:00.000Z'))))`,
    [ID.archived, ID.attempt],
  );
  await pool.query(
    `UPDATE onejob.outbox_deliveries SET state = 'published', published_at = now() WHERE event_id = ANY($1)`,
    [[ID.published, ID.ownPublished]],
  );
  await pool.query(
    `UPDATE onejob.outbox_deliveries SET state = 'dead', attempts = 10, last_error = 'refused', dead_at = now()
     WHERE event_id = $1`,
    [ID.dead],
  );
  await migrate(db.url);
}, 120_000);
afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

describe('migration 0021 on a database with undelivered, published and dead events', () => {
  it('publishes each undelivered event once, none that was published, and keeps the dead letter dead', async () => {
    const accepted: string[] = [];
    const publisher: Publisher = {
      name: 'p',
      kind: 'test',
      concurrency: 4,
      async publish(e: OutboxEvent) {
        accepted.push(e.id);
        return {};
      },
      async close() {},
    };
    const after = await publishEvent(pool, { type: 'shop.order.paid', subject: 'order-3', ownerId: 'o' });
    const policy = { maxDeliveries: 3, retryBaseMs: 1, retryMaxMs: 1 };
    for (let i = 0; i < 5; i++) await relayBatch(pool, publisher, policy, 100);
    expect([...accepted].sort()).toEqual([ID.pending, ID.ownPending, after.event.id].sort());
    const dead = await listDeadLetters(pool, {});
    expect(dead.items.map((d) => [d.eventId, d.publisher, d.attempts])).toEqual([[ID.dead, 'p', 10]]);
    const { rows } = await pool.query<{ event_id: string; state: string }>(
      `SELECT event_id, state FROM onejob.outbox_deliveries WHERE publisher = 'p' ORDER BY seq`,
    );
    expect(Object.fromEntries(rows.map((r) => [r.event_id, r.state]))).toEqual({
      [ID.published]: 'published',
      [ID.pending]: 'published',
      [ID.dead]: 'dead',
      [ID.ownPending]: 'published',
      [ID.ownPublished]: 'published',
      [after.event.id]: 'published',
    });
  });

  it("keeps the archived job's history, each attempt once", async () => {
    const history = await listJobEvents(pool, 'o', ID.archived);
    expect(history.map((e) => [e.type, e.attemptId])).toEqual([
      ['created', null],
      ['attempt_started', ID.attempt],
    ]);
  });
});
