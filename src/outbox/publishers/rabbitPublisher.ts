import amqp from 'amqplib';
import { eventJson, PublishError, type Publisher, withTimeout } from '../publisher.js';

export interface RabbitPublisherOptions {
  name?: string;
  url: string;
  /** Exchange to publish to, declared durable if missing. Default `onejob`. */
  exchange?: string;
  exchangeType?: 'topic' | 'direct' | 'fanout' | 'headers';
  timeoutMs?: number;
  concurrency?: number;
}

interface Connected {
  connection: amqp.ChannelModel;
  channel: amqp.ConfirmChannel;
}

/**
 * RabbitMQ publisher: a confirm channel, persistent messages, `messageId` = event id and
 * routing key = type. An event counts as published only once the broker confirms it.
 */
/** Defaults of the `rabbitmq` publisher's options (docs/configuration.md lists them). */
export const RABBIT_DEFAULTS = {
  exchange: 'onejob',
  exchangeType: 'topic',
  timeoutMs: 5_000,
  concurrency: 256,
} as const;

export function rabbitPublisher(options: RabbitPublisherOptions): Publisher {
  const exchange = options.exchange ?? RABBIT_DEFAULTS.exchange;
  const timeout = options.timeoutMs ?? RABBIT_DEFAULTS.timeoutMs;
  let current: Connected | undefined;
  let connecting: Promise<Connected> | undefined;

  function unavailable(error: unknown): PublishError {
    return new PublishError(`RabbitMQ is unavailable: ${(error as Error).message}`, {
      unavailable: true,
      cause: error,
    });
  }

  function connected(): Promise<Connected> {
    if (current) return Promise.resolve(current);
    connecting ??= (async () => {
      try {
        const connection = await withTimeout(
          amqp.connect(options.url),
          timeout,
          () => new Error(`connect timed out after ${timeout} ms`),
        );
        try {
          const channel = await connection.createConfirmChannel();
          await channel.assertExchange(exchange, options.exchangeType ?? RABBIT_DEFAULTS.exchangeType, {
            durable: true,
          });
          const made: Connected = { connection, channel };
          // A closed connection or channel is dropped; the next publish connects again.
          const forget = () => {
            if (current === made) current = undefined;
          };
          connection.on('error', forget);
          connection.on('close', forget);
          channel.on('error', forget);
          channel.on('close', forget);
          current = made;
          return made;
        } catch (error) {
          await connection.close().catch(() => undefined);
          throw error;
        }
      } catch (error) {
        throw unavailable(error);
      } finally {
        connecting = undefined;
      }
    })();
    return connecting;
  }

  return {
    name: options.name ?? 'rabbitmq',
    kind: 'rabbitmq',
    concurrency: options.concurrency ?? RABBIT_DEFAULTS.concurrency,
    async publish(e) {
      const { channel } = await connected();
      const confirmed = new Promise<void>((resolve, reject) => {
        try {
          channel.publish(
            exchange,
            e.type,
            Buffer.from(eventJson(e)),
            {
              persistent: true,
              messageId: e.id,
              type: e.type,
              contentType: 'application/cloudevents+json',
              timestamp: Math.floor(Date.parse(e.event.time) / 1000),
            },
            (error: unknown) => (error ? reject(error) : resolve()),
          );
        } catch (error) {
          reject(error);
        }
      });
      try {
        await withTimeout(confirmed, timeout, () => new Error(`no publisher confirm within ${timeout} ms`));
        return {};
      } catch (error) {
        // A nack is the broker refusing this message; anything else (closed channel,
        // lost connection, no confirm in time) says nothing about the event.
        const message = (error as Error)?.message ?? String(error);
        if (/nack/i.test(message) && current) {
          throw new PublishError(`RabbitMQ refused the event: ${message}`, {
            unavailable: false,
            cause: error,
          });
        }
        throw unavailable(error);
      }
    },
    async close() {
      await connecting?.catch(() => undefined);
      const c = current;
      current = undefined;
      await c?.connection.close().catch(() => undefined);
    },
  };
}
