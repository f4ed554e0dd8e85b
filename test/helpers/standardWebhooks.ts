// Deliveries signed the Standard Webhooks way, as a payment provider sends them, for the
// inbox tests: a fresh secret per file, the source that checks it, and signed headers.
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

import type { InboxSourceConfig } from '../../src/config/types.js';

/** A signer with a fresh secret, published in `secretEnv` for the inbox source to read. */
export function webhookSigner(secretEnv: string): Webhook {
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  process.env[secretEnv] = secret;
  return new Webhook(secret);
}

/** A Standard Webhooks source whose event id is the `webhook-id` header; its events charge for `acme`. */
export function paymentsSource(secretEnv: string): InboxSourceConfig {
  return {
    scheme: 'standard-webhooks',
    secretEnv,
    eventId: 'header:webhook-id',
    operation: 'charge',
    ownerId: 'acme',
  };
}

/** A delivery for `inbox.receive`: `body` with the id, timestamp and signature headers for `id` at `at`. */
export function signedDelivery(webhook: Webhook, id: string, body: string, at = new Date()) {
  return {
    headers: {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': webhook.sign(id, at, body),
    },
    rawBody: Buffer.from(body),
  };
}
