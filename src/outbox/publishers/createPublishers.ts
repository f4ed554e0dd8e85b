import type { Logger } from 'pino';
import type { PublisherConfig } from '../../config/types.js';
import type { Publisher } from '../publisher.js';
import { logPublisher } from './logPublisher.js';
import { natsPublisher } from './natsPublisher.js';
import { rabbitPublisher } from './rabbitPublisher.js';
import { webhookPublisher, webhookSecretProblem } from './webhookPublisher.js';

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
  /** Where the log publisher writes its events (debug level) unless its `output` is stdout. */
  logger?: Logger,
): Publisher[] {
  const list = configs && configs.length > 0 ? configs : [{ kind: 'log' as const }];
  return list.map((c, i) => {
    switch (c.kind) {
      case 'nats':
        return natsPublisher(c);
      case 'rabbitmq':
        return rabbitPublisher(c);
      case 'webhook': {
        const secret = env[c.secretEnv];
        if (!secret)
          throw new Error(`outbox webhook publisher ${c.name ?? 'webhook'}: ${c.secretEnv} is not set`);
        const problem = webhookSecretProblem(secret);
        if (problem)
          throw new Error(
            `/outbox/publishers/${i}/secretEnv: ${c.secretEnv} (outbox webhook publisher ${c.name ?? 'webhook'}) ${problem}`,
          );
        return webhookPublisher({ ...c, secret });
      }
      default: // 'log'
        return logPublisher({ name: c.name, output: c.output, logger });
    }
  });
}
