import type { PublisherConfig } from '../../config/types.js';
import type { Publisher } from '../publisher.js';
import { logPublisher } from './logPublisher.js';
import { natsPublisher } from './natsPublisher.js';
import { rabbitPublisher } from './rabbitPublisher.js';
import { webhookPublisher } from './webhookPublisher.js';

/**
 * Builds the publishers named in `outbox.publishers` (the log publisher when none are).
 *
 * @example
 * ```ts
 * const publishers = createPublishers(config.outbox?.publishers, process.env);
 * const relay = await startRelay(onejob, { publishers });
 * ```
 */
export function createPublishers(
  configs: PublisherConfig[] | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Publisher[] {
  const list = configs && configs.length > 0 ? configs : [{ kind: 'log' as const }];
  return list.map((c) => {
    switch (c.kind) {
      case 'nats':
        return natsPublisher(c);
      case 'rabbitmq':
        return rabbitPublisher(c);
      case 'webhook': {
        const secret = env[c.secretEnv];
        if (!secret)
          throw new Error(`outbox webhook publisher ${c.name ?? 'webhook'}: ${c.secretEnv} is not set`);
        return webhookPublisher({ ...c, secret });
      }
      default: // 'log'
        return logPublisher({ name: c.name });
    }
  });
}
