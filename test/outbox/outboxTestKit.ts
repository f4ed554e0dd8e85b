// Shared pieces of the outbox tests: configs, waiting for a condition, reading a stream.
import { randomBytes } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import type pg from 'pg';
import { defaultConfig } from '../../src/config/defaultConfig.js';
import type { OnejobConfig, OutboxConfig } from '../../src/config/types.js';
import { createOnejob, type Onejob } from '../../src/createOnejob.js';
import { createLogger } from '../../src/observability/createLogger.js';

export const NATS_URL = 'nats://127.0.0.1:4222';
export const RABBIT_URL = 'amqp://guest:guest@127.0.0.1:5672';

export const uniqueName = (prefix: string) => `${prefix}${randomBytes(4).toString('hex')}`;

export function configWith(outbox: OutboxConfig): OnejobConfig {
  return { ...structuredClone(defaultConfig), outbox };
}

export function engine(url: string, config: OnejobConfig): Onejob {
  return createOnejob({
    connectionString: url,
    config,
    logger: createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'),
  });
}

export async function deliveryCounts(pool: pg.Pool, publisher: string): Promise<Record<string, number>> {
  const { rows } = await pool.query<{ state: string; n: number }>(
    'SELECT state, count(*)::int AS n FROM onejob.outbox_deliveries WHERE publisher = $1 GROUP BY state',
    [publisher],
  );
  return Object.fromEntries(rows.map((r) => [r.state, r.n]));
}

export interface StoredMessage {
  seq: number;
  subject: string;
  msgId: string | undefined;
  event: { id: string; subject: string; type: string; data: Record<string, unknown> };
}

/** Every message stored in a JetStream stream, in stream order. */
export async function streamMessages(stream: string, url = NATS_URL): Promise<StoredMessage[]> {
  const nc = await connect({ servers: url });
  try {
    const jsm = await jetstreamManager(nc);
    const info = await jsm.streams.info(stream);
    const out: StoredMessage[] = [];
    for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
      const m = await jsm.streams.getMessage(stream, { seq });
      if (!m) continue;
      out.push({ seq, subject: m.subject, msgId: m.header.get('Nats-Msg-Id') || undefined, event: m.json() });
    }
    return out;
  } finally {
    await nc.close();
  }
}

export async function deleteStream(stream: string, url = NATS_URL): Promise<void> {
  const nc = await connect({ servers: url }).catch(() => undefined);
  if (!nc) return;
  try {
    const jsm = await jetstreamManager(nc);
    await jsm.streams.delete(stream).catch(() => undefined);
  } finally {
    await nc.close();
  }
}
