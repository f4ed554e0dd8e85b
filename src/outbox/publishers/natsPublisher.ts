import {
  JetStreamApiError,
  type JetStreamClient,
  type JetStreamManager,
  jetstream,
  jetstreamManager,
} from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { redactUrls } from '../../observability/redactUrl.js';
import { eventJson, PublishError, type Publisher } from '../publisher.js';

export interface NatsPublisherOptions {
  name?: string;
  url: string;
  /** Stream to publish into, created if missing. Default `ONEJOB`. */
  stream?: string;
  /** Prepended to the event type to form the subject (for example `staging.`). Default none. */
  subjectPrefix?: string;
  /** Subjects of the stream when onejob creates it. Default `<prefix>onejob.>`. */
  subjects?: string[];
  /** Duplicate window of a stream onejob creates (JetStream's default is 2 minutes). */
  duplicateWindowMs?: number;
  timeoutMs?: number;
  concurrency?: number;
}

const NANOS_PER_MS = 1_000_000;
/** JetStream API error code for "stream not found". */
const STREAM_NOT_FOUND = 10059;

/**
 * JetStream publisher: subject = type, header `Nats-Msg-Id` = event id, so JetStream drops
 * a republished event inside the stream's duplicate window and says so in the PubAck.
 */
/** Defaults of the `nats` publisher's options (docs/configuration.md lists them). */
export const NATS_DEFAULTS = {
  stream: 'ONEJOB',
  subjectPrefix: '',
  timeoutMs: 5_000,
  concurrency: 256,
} as const;

export function natsPublisher(options: NatsPublisherOptions): Publisher {
  const stream = options.stream ?? NATS_DEFAULTS.stream;
  const prefix = options.subjectPrefix ?? NATS_DEFAULTS.subjectPrefix;
  const timeout = options.timeoutMs ?? NATS_DEFAULTS.timeoutMs;
  let nc: NatsConnection | undefined;
  let js: JetStreamClient | undefined;
  let jsm: JetStreamManager | undefined;
  let connecting: Promise<JetStreamClient> | undefined;

  async function ensureStream(manager: JetStreamManager) {
    try {
      await manager.streams.info(stream);
    } catch (error) {
      if (!(error instanceof JetStreamApiError && error.code === STREAM_NOT_FOUND)) throw error;
      await manager.streams
        .add({
          name: stream,
          subjects: options.subjects ?? [`${prefix}onejob.>`],
          ...(options.duplicateWindowMs
            ? { duplicate_window: options.duplicateWindowMs * NANOS_PER_MS }
            : {}),
        })
        .catch(async (addError: unknown) => {
          // Another relay created it first.
          await manager.streams.info(stream).catch(() => {
            throw addError;
          });
        });
    }
  }

  // The connection is made on first use and made again after it closes, so a relay can
  // start while NATS is down and recover when it comes back.
  function client(): Promise<JetStreamClient> {
    if (js && nc && !nc.isClosed()) return Promise.resolve(js);
    connecting ??= (async () => {
      try {
        const conn = await connect({
          servers: options.url,
          name: 'onejob-relay',
          timeout,
          reconnect: true,
          maxReconnectAttempts: -1,
          reconnectTimeWait: 500,
        });
        try {
          const manager = await jetstreamManager(conn, { timeout });
          await ensureStream(manager);
          nc = conn;
          jsm = manager;
          js = jetstream(conn, { timeout });
          return js;
        } catch (error) {
          await conn.close().catch(() => undefined);
          throw error;
        }
      } catch (error) {
        throw new PublishError(
          `NATS at ${redactUrls(options.url)} is unavailable: ${(error as Error).message}`,
          {
            unavailable: true,
            cause: error,
          },
        );
      } finally {
        connecting = undefined;
      }
    })();
    return connecting;
  }

  return {
    name: options.name ?? 'nats',
    kind: 'nats',
    concurrency: options.concurrency ?? NATS_DEFAULTS.concurrency,
    async publish(e) {
      const client_ = await client();
      const subject = prefix + e.type;
      try {
        const ack = await client_.publish(subject, eventJson(e), { msgID: e.id, timeout });
        return { duplicate: ack.duplicate };
      } catch (error) {
        if (error instanceof JetStreamApiError) {
          throw new PublishError(`JetStream refused the event: ${error.message}`, {
            unavailable: false,
            cause: error,
          });
        }
        // The package does not export JetStreamNotEnabled; it is what a publish without
        // responders (no stream on the subject) throws.
        if ((error as Error).name === 'JetStreamNotEnabled' && jsm) {
          // No stream listens on the subject: either the stream is gone (recreate it on
          // the next connection) or it does not capture this subject (the event is at fault).
          const exists = await jsm.streams.info(stream).then(
            () => true,
            () => false,
          );
          if (exists) {
            throw new PublishError(`stream ${stream} does not capture subject ${subject}`, {
              unavailable: false,
              cause: error,
            });
          }
          await nc?.close().catch(() => undefined);
        }
        throw new PublishError(`NATS publish failed: ${(error as Error).message}`, {
          unavailable: true,
          cause: error,
        });
      }
    },
    async close() {
      await connecting?.catch(() => undefined);
      await nc?.drain().catch(() => undefined);
    },
  };
}
