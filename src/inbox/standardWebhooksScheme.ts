// Standard Webhooks (https://www.standardwebhooks.com): HMAC-SHA256 over
// "<webhook-id>.<webhook-timestamp>.<body>", sent as "v1,<base64>" in webhook-signature
// (several space-separated signatures while a secret rotates).
import { timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { OnejobError } from '../errors/OnejobError.js';
import type { SchemeOptions, SignatureVerifier, SignedDelivery } from './signatureSchemes.js';

const refuse = (detail: string) => new OnejobError('signature_invalid', detail);

function header(delivery: SignedDelivery, name: string): string | undefined {
  const value = delivery.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export function standardWebhooksScheme(secret: string, options: SchemeOptions): SignatureVerifier {
  // Decodes the whsec_ base64 secret now, so a bad secret stops the server at start.
  const webhook = new Webhook(secret);
  return {
    verify(delivery, now) {
      const id = header(delivery, 'webhook-id');
      const timestamp = header(delivery, 'webhook-timestamp');
      const signatures = header(delivery, 'webhook-signature');
      if (!id || !timestamp || !signatures) {
        throw refuse(
          'Standard Webhooks deliveries carry webhook-id, webhook-timestamp and webhook-signature headers.',
        );
      }
      if (!/^\d{1,15}$/.test(timestamp))
        throw refuse('webhook-timestamp must be whole seconds since the epoch.');
      // The package's own verify() has a fixed five-minute window; the source's tolerance
      // is checked here and the package computes the signature.
      const seconds = Number(timestamp);
      const skew = Math.abs(now.getTime() / 1000 - seconds);
      if (skew > options.toleranceSeconds) {
        throw refuse(
          `webhook-timestamp is ${Math.round(skew)} s from now; the tolerance is ${options.toleranceSeconds} s.`,
        );
      }
      const expected = Buffer.from(
        webhook.sign(id, new Date(seconds * 1000), delivery.rawBody).split(',')[1] ?? '',
      );
      for (const versioned of signatures.split(' ')) {
        const [version, signature] = versioned.split(',');
        if (version !== 'v1' || !signature) continue;
        const given = Buffer.from(signature);
        if (given.length === expected.length && timingSafeEqual(given, expected)) return;
      }
      throw refuse('No v1 signature in webhook-signature matches the body and the source secret.');
    },
  };
}
