import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OnejobConfig } from '../../src/config/types.js';
import type { Onejob } from '../../src/createOnejob.js';
import { publishEvent } from '../../src/outbox/publishEvent.js';
import { startRelay } from '../../src/outbox/startRelay.js';
import { serveRole, writeConfigFile } from '../helpers/spawnOnejob.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';
import { until } from '../helpers/until.js';
import { configWith, deleteStream, engine, NATS_URL, streamMessages, uniqueName } from './outboxTestKit.js';

// One stream and subject prefix per file, so parallel runs never share a stream.
const stream = uniqueName('ONEJOB_T_');
const prefix = `${uniqueName('t')}.`;

let db: TestDatabase;
let config: OnejobConfig;
let onejob: Onejob;

beforeAll(async () => {
  db = await createTestDatabase();
  config = configWith({
    publishers: [{ kind: 'nats', url: NATS_URL, stream, subjectPrefix: prefix, timeoutMs: 2_000 }],
    pollMs: 50,
  });
  onejob = engine(db.url, config);
});
afterAll(async () => {
  await onejob?.close();
  await db?.drop();
  await deleteStream(stream);
});

const relayEnv = (failpoints?: string) => ({
  DATABASE_URL: db.url,
  ONEJOB_API_KEYS: 'relay-test=relay',
  ONEJOB_FAILPOINTS: failpoints,
  LOG_LEVEL: 'info',
});

async function publishedState(eventId: string) {
  const { rows } = await onejob.pool.query<{ state: string }>(
    `SELECT state FROM onejob.outbox_deliveries WHERE event_id = $1 AND publisher = 'nats'`,
    [eventId],
  );
  return rows[0]?.state;
}

async function createdEventOf(jobId: string): Promise<string> {
  const { rows } = await onejob.pool.query<{ id: string }>(
    `SELECT id FROM onejob.outbox WHERE subject = $1 AND type = 'onejob.job.created'`,
    [jobId],
  );
  return rows[0]!.id;
}

// Tests that start `onejob serve` in child processes: two process starts each.
const SPAWN_TIMEOUT = 150_000;

describe('outbox relay to NATS JetStream', () => {
  it(
    'a relay killed after the job committed and before publishing still gets the event out, once, after restart',
    async () => {
      const { job } = await onejob.jobs.create({
        ownerId: 'o',
        idempotencyKey: 'kill-before',
        operation: 'charge',
        input: { amount: 1 },
      });
      const eventId = await createdEventOf(job.id);
      const file = await writeConfigFile(config);

      const doomed = serveRole('relay', file, relayEnv('relay.before_publish=kill'));
      expect(await doomed.exited).toBe('SIGKILL');
      expect(doomed.output()).toMatch(/failpoint relay.before_publish: SIGKILL/);
      expect(await publishedState(eventId)).toBe('pending');

      const relay = serveRole('relay', file, relayEnv());
      try {
        await until('the event to be published', async () => (await publishedState(eventId)) === 'published');
      } finally {
        await relay.kill('SIGTERM');
      }
      const copies = (await streamMessages(stream)).filter((m) => m.msgId === eventId);
      expect(copies).toHaveLength(1);
      expect(copies[0]!.subject).toBe(`${prefix}onejob.job.created`);
      expect(copies[0]!.event).toMatchObject({
        id: eventId,
        type: 'onejob.job.created',
        subject: job.id,
        specversion: '1.0',
      });
    },
    SPAWN_TIMEOUT,
  );

  it(
    'a relay killed after JetStream accepted and before marking republishes the same id, and JetStream reports the duplicate',
    async () => {
      const { job } = await onejob.jobs.create({
        ownerId: 'o',
        idempotencyKey: 'kill-after',
        operation: 'charge',
        input: { amount: 2 },
      });
      const eventId = await createdEventOf(job.id);
      const file = await writeConfigFile(config);

      const doomed = serveRole('relay', file, relayEnv('relay.after_publish=kill'));
      expect(await doomed.exited).toBe('SIGKILL');
      expect(doomed.output()).toMatch(/failpoint relay.after_publish: SIGKILL/);
      expect(await publishedState(eventId)).toBe('pending');
      expect((await streamMessages(stream)).filter((m) => m.msgId === eventId)).toHaveLength(1);

      const relay = serveRole('relay', file, relayEnv());
      try {
        await until(
          'the event to be marked published',
          async () => (await publishedState(eventId)) === 'published',
        );
        const line = await relay.waitForOutput(new RegExp(`"eventId":"${eventId}".*"duplicate":true`));
        expect(line).toContain('"publisher":"nats"');
      } finally {
        await relay.kill('SIGTERM');
      }
      expect((await streamMessages(stream)).filter((m) => m.msgId === eventId)).toHaveLength(1);
    },
    SPAWN_TIMEOUT,
  );

  describe('with a relay in this process', () => {
    let relay: Awaited<ReturnType<typeof startRelay>>;
    beforeAll(async () => {
      relay = await startRelay(onejob);
    });
    afterAll(async () => relay?.stop());

    it('a job transaction that rolls back publishes nothing', async () => {
      const client = await onejob.pool.connect();
      let rolledBack: string;
      try {
        await client.query('BEGIN');
        const { job } = await onejob.jobs.create(
          { ownerId: 'o', idempotencyKey: 'rolled-back', operation: 'charge', input: { amount: 3 } },
          { tx: client },
        );
        rolledBack = job.id;
        await client.query('ROLLBACK');
      } finally {
        client.release();
      }
      // A later event that does commit: once it is out, the relay has passed the point
      // where the rolled-back one would have been.
      const { event: marker } = await publishEvent(onejob.pool, {
        type: 'onejob.test.marker',
        subject: 'marker',
        data: {},
      });
      await until(
        'the marker to be published',
        async () => (await publishedState(marker.id)) === 'published',
      );
      const messages = await streamMessages(stream);
      expect(messages.some((m) => m.event.subject === rolledBack)).toBe(false);
      expect(messages.filter((m) => m.msgId === marker.id)).toHaveLength(1);
      const { rowCount } = await onejob.pool.query('SELECT 1 FROM onejob.outbox WHERE subject = $1', [
        rolledBack,
      ]);
      expect(rowCount).toBe(0);
    });

    it('an event held by a long transaction is published once it commits, after later events went out', async () => {
      const holder = await onejob.pool.connect();
      try {
        await holder.query('BEGIN');
        const { event: early } = await publishEvent(holder, {
          type: 'onejob.test.early',
          subject: 'long-tx-a',
          data: {},
        });
        const later: { id: string }[] = [];
        for (let i = 0; i < 5; i++) {
          later.push(
            (
              await publishEvent(onejob.pool, {
                type: 'onejob.test.later',
                subject: `long-tx-b${i}`,
                data: { i },
              })
            ).event,
          );
        }
        const seqs = await onejob.pool.query<{ seq: string }>(
          'SELECT seq::text FROM onejob.outbox WHERE id = ANY($1)',
          [later.map((e) => e.id)],
        );
        await until('the later events to be published', async () =>
          (await Promise.all(later.map((e) => publishedState(e.id)))).every((s) => s === 'published'),
        );
        // The early event holds a lower seq than every later one that already went out.
        const { rows } = await holder.query<{ seq: string }>(
          'SELECT seq::text FROM onejob.outbox WHERE id = $1',
          [early.id],
        );
        expect(seqs.rows.every((r) => BigInt(r.seq) > BigInt(rows[0]!.seq))).toBe(true);
        expect((await streamMessages(stream)).some((m) => m.msgId === early.id)).toBe(false);

        await holder.query('COMMIT');
        await until(
          'the early event to be published',
          async () => (await publishedState(early.id)) === 'published',
        );
        expect((await streamMessages(stream)).filter((m) => m.msgId === early.id)).toHaveLength(1);
      } finally {
        await holder.query('ROLLBACK').catch(() => undefined);
        holder.release();
      }
    });
  });
});
