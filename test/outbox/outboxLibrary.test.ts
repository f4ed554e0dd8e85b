import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupOutbox } from '../../src/outbox/cleanupOutbox.js';
import { consumeOnce } from '../../src/outbox/consumeOnce.js';
import { NO_OWNER, publishEvent } from '../../src/outbox/publishEvent.js';
import { registerPublishers } from '../../src/outbox/registerPublishers.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';

let db: TestDatabase;
let pool: pg.Pool;

beforeAll(async () => {
  db = await createTestDatabase();
  pool = new pg.Pool({ connectionString: db.url });
});
afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

describe('outbox library functions', () => {
  it("publishEvent with the caller's own id writes once and says so the second time", async () => {
    const id = '0190a5c4-0000-7000-8000-000000000001';
    const first = await publishEvent(pool, {
      id,
      type: 'shop.order.paid',
      subject: 'order-9',
      data: { amount: 1 },
    });
    const second = await publishEvent(pool, {
      id,
      type: 'shop.order.paid',
      subject: 'order-9',
      data: { amount: 2 },
    });
    expect(first.inserted).toBe(true);
    expect(second).toEqual({ inserted: false, event: first.event });
    const { rowCount } = await pool.query('SELECT 1 FROM onejob.outbox WHERE id = $1', [id]);
    expect(rowCount).toBe(1);
  });

  it("an event carries its owner to every publisher's delivery; without one it belongs to the owner ''", async () => {
    await registerPublishers(pool, [{ name: 'owners-log', kind: 'log' }]);
    const owned = await publishEvent(pool, { type: 'shop.order.paid', subject: 'order-10', ownerId: 'acme' });
    const plain = await publishEvent(pool, { type: 'shop.order.paid', subject: 'order-11' });
    const owners = async (id: string) =>
      (
        await pool.query<{ owner_id: string; delivery_owner: string }>(
          `SELECT o.owner_id, d.owner_id AS delivery_owner FROM onejob.outbox o
           JOIN onejob.outbox_deliveries d ON d.event_id = o.id WHERE o.id = $1 AND d.publisher = 'owners-log'`,
          [id],
        )
      ).rows;
    expect(await owners(owned.event.id)).toEqual([{ owner_id: 'acme', delivery_owner: 'acme' }]);
    expect(await owners(plain.event.id)).toEqual([{ owner_id: NO_OWNER, delivery_owner: NO_OWNER }]);
    expect(NO_OWNER).toBe('');
  });

  it('an event id is idempotent per owner: the same id under another owner is another event', async () => {
    const id = '0190a5c4-0000-7000-8000-000000000002';
    const a = await publishEvent(pool, { id, ownerId: 'a', type: 'shop.order.paid', subject: 'order-12' });
    const again = await publishEvent(pool, {
      id,
      ownerId: 'a',
      type: 'shop.order.paid',
      subject: 'order-12',
    });
    const b = await publishEvent(pool, { id, ownerId: 'b', type: 'shop.order.paid', subject: 'order-12' });
    expect([a.inserted, again.inserted, b.inserted]).toEqual([true, false, true]);
    const { rows } = await pool.query('SELECT owner_id FROM onejob.outbox WHERE id = $1 ORDER BY owner_id', [
      id,
    ]);
    expect(rows).toEqual([{ owner_id: 'a' }, { owner_id: 'b' }]);
  });

  it('consumeOnce refuses to run outside a transaction, where the inbox row would commit without the effect', async () => {
    let ran = false;
    await expect(
      consumeOnce(pool, 'billing', { id: 'e-1' }, async () => {
        ran = true;
      }),
    ).rejects.toThrow(/open transaction/);
    expect(ran).toBe(false);
    const { rowCount } = await pool.query(`SELECT 1 FROM onejob.consumer_inbox WHERE event_id = 'e-1'`);
    expect(rowCount).toBe(0);
  });

  it('a consumer transaction that rolls back leaves the event unconsumed, so the redelivery applies it', async () => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      expect((await consumeOnce(client, 'billing', { id: 'e-2' }, async () => 'first')).applied).toBe(true);
      await client.query('ROLLBACK');
      await client.query('BEGIN');
      expect(await consumeOnce(client, 'billing', { id: 'e-2' }, async () => 'second')).toEqual({
        applied: true,
        result: 'second',
      });
      await client.query('COMMIT');
      await client.query('BEGIN');
      expect(await consumeOnce(client, 'billing', { id: 'e-2' }, async () => 'third')).toEqual({
        applied: false,
      });
      // Another consumer of the same event has its own record.
      expect((await consumeOnce(client, 'mailer', { id: 'e-2' }, async () => 'mail')).applied).toBe(true);
      await client.query('COMMIT');
    } finally {
      client.release();
    }
  });

  it('cleanup deletes only old events of your own every publisher is past, never pending ones, dead letters or job history', async () => {
    await registerPublishers(pool, [
      { name: 'a', kind: 'log' },
      { name: 'b', kind: 'log' },
    ]);
    const ids: Record<string, string> = {};
    for (const name of ['done', 'half', 'dead', 'recent', 'ahead']) {
      ids[name] = (await publishEvent(pool, { type: 'onejob.test.cleanup', subject: name })).event.id;
    }
    // A job's public event, as old: history, never cleaned up.
    const { rows: jobEvents } = await pool.query<{ job_id: string }>(
      `INSERT INTO onejob.job_events (id, job_id, owner_id, type, publish, event, created_at)
       VALUES (gen_random_uuid(), gen_random_uuid(), 'o', 'created', 'onejob.job.created', '{}', now() - interval '10 days')
       RETURNING job_id`,
    );
    // Every publisher's position past every event so far, as after a relay's pass; then
    // 'half' still waits for a retry to b, 'dead' is a dead letter for b, and 'ahead' is
    // written again under a new id after the positions were taken.
    await pool.query('UPDATE onejob.outbox_publishers SET done = pg_current_snapshot()');
    ids.ahead = (await publishEvent(pool, { type: 'onejob.test.cleanup', subject: 'ahead' })).event.id;
    await pool.query(
      `INSERT INTO onejob.outbox_retries (event_id, owner_id, publisher, seq, subject, created_at, attempts, state, dead_at)
       SELECT id, owner_id, 'b', seq, subject, created_at, 3, CASE WHEN id = $2 THEN 'dead' ELSE 'pending' END,
              CASE WHEN id = $2 THEN now() END
       FROM onejob.job_events WHERE id = ANY($1)`,
      [[ids.half, ids.dead], ids.dead],
    );
    await pool.query('ALTER TABLE onejob.job_events DISABLE TRIGGER job_events_append_only');
    await pool.query(
      `UPDATE onejob.job_events SET created_at = now() - interval '10 days' WHERE id = ANY($1)`,
      [[ids.done, ids.half, ids.dead, ids.ahead]],
    );
    await pool.query('ALTER TABLE onejob.job_events ENABLE TRIGGER job_events_append_only');

    expect(await cleanupOutbox(pool, 24 * 7)).toBe(1);
    const { rows } = await pool.query<{ id: string }>('SELECT id FROM onejob.outbox WHERE id = ANY($1)', [
      Object.values(ids),
    ]);
    expect(new Set(rows.map((r) => r.id))).toEqual(new Set([ids.half, ids.dead, ids.recent, ids.ahead]));
    const history = await pool.query('SELECT 1 FROM onejob.job_events WHERE job_id = $1', [
      jobEvents[0]?.job_id,
    ]);
    expect(history.rowCount).toBe(1);
  });
});
