// A consumer of the outbox's NATS stream, as an application would write one: a durable
// JetStream consumer with explicit acks that applies each event inside its own PostgreSQL
// transaction through the exactly-once consumer helper, and acks only after commit. Every
// delivery is recorded, redeliveries included, so the checker can compare deliveries with
// effects.
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { Queryable } from '../../src/db/createPool.js';
import { type DatabaseTarget, resilientPool } from '../cluster/resilientPool.js';
import type { Delivery } from '../history/types.js';

type ConsumeOnce = (
  tx: Queryable,
  consumer: string,
  event: { id: string; type?: string },
  apply: () => Promise<unknown>,
) => Promise<{ applied: boolean }>;

export const CONSUMER_NAME = 'chaos-consumer';
export const EFFECTS_TABLE = 'public.onejob_chaos_effects';

/** The exactly-once helper, when this build has it. */
export async function loadConsumeOnce(): Promise<ConsumeOnce | undefined> {
  try {
    const mod = (await import('../../src/outbox/consumeOnce.js')) as { consumeOnce?: ConsumeOnce };
    return typeof mod.consumeOnce === 'function' ? mod.consumeOnce : undefined;
  } catch {
    return undefined;
  }
}

export interface EventConsumer {
  deliveries: Delivery[];
  helper: boolean;
  seen(): Set<string>;
  /** The stream's and the consumer's own counts, for diagnosing a run that does not settle. */
  info(): Promise<Record<string, unknown>>;
  stop(): Promise<void>;
}

const NANOS_PER_MS = 1_000_000;

export async function runEventConsumer(o: {
  natsUrls: string[];
  stream: string;
  /** The harness's own connections: a URL, or the current primary's. */
  databaseUrl: DatabaseTarget;
}): Promise<EventConsumer> {
  const consumeOnce = await loadConsumeOnce();
  const pool = resilientPool(o.databaseUrl, 4);
  await pool.query(
    `CREATE TABLE IF NOT EXISTS ${EFFECTS_TABLE} (event_id text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
  );
  const dial = () =>
    connect({ servers: o.natsUrls, reconnect: true, maxReconnectAttempts: -1, reconnectTimeWait: 250 });
  let nc: NatsConnection = await dial();
  const jsm = await jetstreamManager(nc);
  await jsm.consumers.add(o.stream, {
    durable_name: CONSUMER_NAME,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    ack_wait: 5_000 * NANOS_PER_MS,
    max_ack_pending: 1_000,
  });
  let consumer = await jetstream(nc).consumers.get(o.stream, CONSUMER_NAME);
  const deliveries: Delivery[] = [];
  const seen = new Set<string>();
  let running = true;
  let stopping: Promise<void> | undefined;

  async function apply(event: { id: string; type: string }): Promise<void> {
    if (!consumeOnce) return;
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await consumeOnce(client, CONSUMER_NAME, event, async () => {
        await client.query(`INSERT INTO ${EFFECTS_TABLE} (event_id) VALUES ($1)`, [event.id]);
      });
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  // One bounded pull per round, not one long-lived consume(). A round that does not end
  // (a pull left pending on a NATS node that restarted can hang the client) is abandoned
  // with its connection, and the next round starts on a new connection: an application
  // consumer that stops consuming would otherwise look like lost events.
  const round = async () => {
    const messages = await consumer.fetch({ max_messages: 200, expires: 2_000 });
    for await (const m of messages) {
      if (!running) break;
      let event: { id: string; type: string; subject: string; data?: { idempotencyKey?: string } };
      try {
        event = m.json();
      } catch {
        m.term();
        continue;
      }
      const delivery: Delivery = {
        eventId: event.id,
        type: event.type,
        subject: event.subject,
        ...(typeof event.data?.idempotencyKey === 'string'
          ? { idempotencyKey: event.data.idempotencyKey }
          : {}),
        at: Date.now(),
        redelivered: m.redelivered,
        acked: false,
      };
      deliveries.push(delivery);
      try {
        // Bounded: a delivery stuck on a database restart is nak'ed and comes again.
        await Promise.race([
          apply(event),
          new Promise((_, reject) => setTimeout(() => reject(new Error('apply timed out')), 20_000)),
        ]);
        seen.add(event.id);
        m.ack();
        delivery.acked = true;
      } catch {
        // The database is away: let JetStream deliver it again.
        m.nak(500);
      }
    }
  };

  const loop = (async () => {
    while (running) {
      let timer: NodeJS.Timeout | undefined;
      const stuck = new Promise<'stuck'>((resolve) => {
        timer = setTimeout(() => resolve('stuck'), 45_000);
      });
      try {
        const outcome = await Promise.race([round(), stuck]);
        if (outcome === 'stuck' && running) {
          const old = nc;
          nc = await dial();
          consumer = await jetstream(nc).consumers.get(o.stream, CONSUMER_NAME);
          void old.close().catch(() => undefined);
        }
      } catch {
        await new Promise((r) => setTimeout(r, 500));
      } finally {
        clearTimeout(timer);
      }
    }
  })();

  return {
    deliveries,
    helper: consumeOnce !== undefined,
    seen: () => seen,
    async info() {
      const now = await jetstreamManager(nc);
      const stream = await now.streams.info(o.stream);
      const c = await now.consumers.info(o.stream, CONSUMER_NAME);
      return {
        streamMessages: stream.state.messages,
        consumerDelivered: c.delivered.stream_seq,
        ackFloor: c.ack_floor.stream_seq,
        numPending: c.num_pending,
        numAckPending: c.num_ack_pending,
        numRedelivered: c.num_redelivered,
        seen: seen.size,
      };
    },
    stop() {
      stopping ??= (async () => {
        running = false;
        await nc.drain().catch(() => nc.close().catch(() => undefined));
        await Promise.race([loop, new Promise((r) => setTimeout(r, 3_000))]);
        await pool.end().catch(() => undefined);
      })();
      return stopping;
    },
  };
}
