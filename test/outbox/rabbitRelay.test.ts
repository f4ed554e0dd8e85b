import amqp from 'amqplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OnejobConfig } from '../../src/config/types.js';
import type { Onejob } from '../../src/createOnejob.js';
import { consumeOnce } from '../../src/outbox/consumeOnce.js';
import { publishEvent } from '../../src/outbox/publishEvent.js';
import { startRelay } from '../../src/outbox/startRelay.js';
import { serveRole, writeConfigFile } from '../helpers/spawnOnejob.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';
import { until } from '../helpers/until.js';
import { configWith, deliveryCounts, engine, RABBIT_URL, uniqueName } from './outboxTestKit.js';

// One exchange and queue per file, deleted at the end.
const exchange = uniqueName('onejob.test.');
const queue = uniqueName('onejob.test.q.');

let db: TestDatabase;
let config: OnejobConfig;
let onejob: Onejob;
let connection: amqp.ChannelModel;
let channel: amqp.Channel;

beforeAll(async () => {
  db = await createTestDatabase();
  config = configWith({
    publishers: [{ kind: 'rabbitmq', url: RABBIT_URL, exchange, timeoutMs: 5_000 }],
    pollMs: 50,
  });
  onejob = engine(db.url, config);
  connection = await amqp.connect(RABBIT_URL);
  channel = await connection.createChannel();
  await channel.assertExchange(exchange, 'topic', { durable: true });
  await channel.assertQueue(queue, { durable: false });
  await channel.bindQueue(queue, exchange, '#');
  await onejob.pool.query('CREATE TABLE test_charges (event_id text NOT NULL, amount int NOT NULL)');
});
afterAll(async () => {
  await channel?.deleteQueue(queue).catch(() => undefined);
  await channel?.deleteExchange(exchange).catch(() => undefined);
  await connection?.close().catch(() => undefined);
  await onejob?.close();
  await db?.drop();
});

/** Takes every message waiting in the queue (basic.get until empty). */
async function drainQueue(): Promise<amqp.GetMessage[]> {
  const out: amqp.GetMessage[] = [];
  for (;;) {
    const m = await channel.get(queue, { noAck: true });
    if (!m) return out;
    out.push(m);
  }
}

// Tests that start `onejob serve` in child processes: two process starts each.
const SPAWN_TIMEOUT = 150_000;

describe('outbox relay to RabbitMQ', () => {
  it(
    'a relay killed after the broker confirmed republishes the same messageId, and a consumer using consumeOnce applies it once',
    async () => {
      const { job } = await onejob.jobs.create({
        ownerId: 'o',
        idempotencyKey: 'rabbit-kill-after',
        operation: 'charge',
        input: { amount: 42 },
      });
      const file = await writeConfigFile(config);
      const env = { DATABASE_URL: db.url, ONEJOB_API_KEYS: 'relay-test=relay', LOG_LEVEL: 'info' };

      const doomed = serveRole('relay', file, {
        ...env,
        ONEJOB_FAILPOINTS: 'relay.after_publish=kill',
      });
      expect(await doomed.exited).toBe('SIGKILL');
      const relay = serveRole('relay', file, env);
      try {
        await until(
          'the event to be marked published',
          async () => (await deliveryCounts(onejob.pool, 'rabbitmq')).published === 1,
        );
      } finally {
        await relay.kill('SIGTERM');
      }

      const messages = await drainQueue();
      // At-least-once delivery: the broker got the event twice, under one id.
      expect(messages).toHaveLength(2);
      const ids = new Set(messages.map((m) => m.properties.messageId));
      expect(ids.size).toBe(1);
      expect(messages[0]!.fields.routingKey).toBe('onejob.job.created');
      expect(messages[0]!.properties.deliveryMode).toBe(2);

      // Exactly-once effect: the consumer records the id with its own write.
      const outcomes = [];
      for (const m of messages) {
        const event = JSON.parse(m.content.toString()) as {
          id: string;
          type: string;
          data: { jobId: string };
        };
        expect(event.id).toBe(m.properties.messageId);
        const client = await onejob.pool.connect();
        try {
          await client.query('BEGIN');
          outcomes.push(
            await consumeOnce(client, 'billing', event, async () => {
              await client.query('INSERT INTO test_charges (event_id, amount) VALUES ($1, 42)', [event.id]);
            }),
          );
          await client.query('COMMIT');
        } finally {
          client.release();
        }
        expect(event.data.jobId).toBe(job.id);
      }
      expect(outcomes.map((o) => o.applied)).toEqual([true, false]);
      const { rows } = await onejob.pool.query('SELECT count(*)::int AS n FROM test_charges');
      expect(rows[0].n).toBe(1);
    },
    SPAWN_TIMEOUT,
  );

  it(
    'two relays at once publish 5,000 events: none lost, none twice, each subject in order',
    async () => {
      await drainQueue();
      const second = engine(db.url, config);
      const relays = [await startRelay(onejob), await startRelay(second)];
      const subjects = 1_000;
      const rounds = 5;
      try {
        // Written while both relays run: per round, four transactions side by side, each
        // with 250 subjects; a subject's next round starts after its previous one committed.
        for (let round = 0; round < rounds; round++) {
          await Promise.all(
            [0, 250, 500, 750].map(async (from) => {
              const client = await onejob.pool.connect();
              try {
                await client.query('BEGIN');
                for (let s = from; s < from + 250; s++) {
                  await publishEvent(client, {
                    type: 'onejob.test.step',
                    subject: `order-${s}`,
                    data: { round },
                  });
                }
                await client.query('COMMIT');
              } finally {
                client.release();
              }
            }),
          );
        }
        await until(
          'all 5,000 events to be published',
          async () => {
            const { rows } = await onejob.pool.query<{ n: number }>(
              `SELECT count(*)::int AS n FROM onejob.outbox_deliveries d JOIN onejob.outbox o ON o.id = d.event_id
             WHERE o.type = 'onejob.test.step' AND d.state = 'published'`,
            );
            return (
              rows[0]!.n === subjects * rounds &&
              (await deliveryCounts(onejob.pool, 'rabbitmq')).pending === undefined
            );
          },
          120_000,
        );
      } finally {
        await Promise.all(relays.map((r) => r.stop()));
        await second.close();
      }
      const messages = await drainQueue();
      const events = messages
        .map(
          (m) =>
            JSON.parse(m.content.toString()) as {
              id: string;
              type: string;
              subject: string;
              data: { round: number };
            },
        )
        .filter((e) => e.type === 'onejob.test.step');
      const others = messages.length - events.length;
      expect(events).toHaveLength(subjects * rounds);
      expect(new Set(events.map((e) => e.id)).size).toBe(subjects * rounds);
      const seen = new Map<string, number[]>();
      for (const e of events) seen.set(e.subject, [...(seen.get(e.subject) ?? []), e.data.round]);
      expect(seen.size).toBe(subjects);
      for (const order of seen.values()) expect(order).toEqual([0, 1, 2, 3, 4]);
      // Both relays did part of the work.
      const counts = relays.map((r) => r.stats.get('rabbitmq')!.published);
      expect(counts[0]! + counts[1]!).toBe(subjects * rounds + others);
      expect(Math.min(...counts)).toBeGreaterThan(0);
    },
    SPAWN_TIMEOUT,
  );
});
