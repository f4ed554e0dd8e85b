// Standard Webhooks (https://www.standardwebhooks.com): HMAC-SHA256 over
// "<webhook-id>.<webhook-timestamp>.<body>", sent as "v1,<base64>" in webhook-signature
// (several space-separated signatures while a secret rotates).
import { timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { headerValue, requireFresh, requireStrongSecret, signatureInvalid } from './signatureChecks.js';
import type { SignatureScheme } from './signatureScheme.js';

export const standardWebhooksScheme: SignatureScheme = {
  // webhook-id is part of the signed string, so it is a signed event id.
  defaultEventId: { kind: 'header', name: 'webhook-id' },
  signedHeaders: ['webhook-id'],
  settings: ['toleranceSeconds'],
  verifier(secret, options) {
    // Decodes the whsec_ base64 secret now, so a bad secret stops the server at start.
    const webhook = new Webhook(secret);
    requireStrongSecret(Buffer.from(secret.replace(/^whsec_/, ''), 'base64'));
    return {
      verify(delivery, now) {
        const id = headerValue(delivery, 'webhook-id');
        const timestamp = headerValue(delivery, 'webhook-timestamp');
        const signatures = headerValue(delivery, 'webhook-signature');
        if (!id || !timestamp || !signatures) {
          throw signatureInvalid(
            'Standard Webhooks deliveries carry webhook-id, webhook-timestamp and webhook-signature headers.',
          );
        }
        if (!/^\d{1,15}$/.test(timestamp))
          throw signatureInvalid('webhook-timestamp must be whole seconds since the epoch.');
        // The package's own verify() has a fixed five-minute window; the source's tolerance
        // is checked here and the package computes the signature.
        const seconds = Number(timestamp);
        requireFresh(seconds, now, options.toleranceSeconds, 'webhook-timestamp');
        const expected = Buffer.from(
          webhook.sign(id, new Date(seconds * 1000), delivery.rawBody).split(',')[1] ?? '',
        );
        for (const versioned of signatures.split(' ')) {
          const [version, signature] = versioned.split(',');
          if (version !== 'v1' || !signature) continue;
          const given = Buffer.from(signature);
          if (given.length === expected.length && timingSafeEqual(given, expected)) {
            return { body: delivery.rawBody, timestamp: new Date(seconds * 1000) };
          }
        }
        throw signatureInvalid(
          'No v1 signature in webhook-signature matches the body and the source secret.',
        );
      },
    };
  },
};
