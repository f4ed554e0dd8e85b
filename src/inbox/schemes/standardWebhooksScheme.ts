// Standard Webhooks (https://www.standardwebhooks.com): HMAC-SHA256 over
// "<webhook-id>.<webhook-timestamp>.<body>", sent as "v1,<base64>" in webhook-signature
// (several space-separated signatures while a secret rotates). The body part is the raw
// bytes as received, never a decoding of them: a body that is not valid UTF-8 must verify
// exactly when its bytes were signed.
import { timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { headerValue, hmac, requireFresh, requireStrongSecret, signatureInvalid } from './signatureChecks.js';
import type { SignatureScheme } from './signatureScheme.js';

export const standardWebhooksScheme: SignatureScheme = {
  // webhook-id is part of the signed string, so it is a signed event id.
  defaultEventId: { kind: 'header', name: 'webhook-id' },
  signedHeaders: ['webhook-id'],
  settings: ['toleranceSeconds'],
  verifier(secret, options) {
    // The package decodes the whsec_ base64 secret now, so a bad secret stops the server at start.
    new Webhook(secret);
    const key = requireStrongSecret(Buffer.from(secret.replace(/^whsec_/, ''), 'base64'));
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
        // The package's verify() has a fixed five-minute window and signs a string (a body
        // that is not UTF-8 would be decoded lossily first): both are done here instead.
        const seconds = Number(timestamp);
        requireFresh(seconds, now, options.toleranceSeconds, 'webhook-timestamp');
        const expected = Buffer.from(
          hmac('sha256', key, `${id}.${timestamp}.`, delivery.rawBody).toString('base64'),
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
