// GitHub: `X-Hub-Signature-256: sha256=<hex>` is HMAC-SHA256(secret, body). Nothing else
// is signed: no timestamp, and not the X-GitHub-Delivery GUID, so the default event id is
// the SHA-256 of the signed body (a redelivery sends the same bytes).
import { headerValue, hexMatches, hmac, requireStrongSecret, signatureInvalid } from './signatureChecks.js';
import type { SignatureScheme } from './signatureScheme.js';

export const githubScheme: SignatureScheme = {
  defaultEventId: { kind: 'body-sha256' },
  signedHeaders: [],
  unsignedHeaders: ['x-github-delivery'],
  settings: ['allowSha1'],
  verifier(secret, options) {
    const key = requireStrongSecret(Buffer.from(secret, 'utf8'));
    return {
      verify(delivery) {
        const sha256 = headerValue(delivery, 'x-hub-signature-256');
        if (sha256 !== undefined) {
          // With a SHA-256 signature present, SHA-1 is never consulted: a forger cannot
          // downgrade a delivery by sending a bad SHA-256 and a SHA-1 beside it.
          if (
            !sha256.startsWith('sha256=') ||
            !hexMatches(sha256.slice(7), hmac('sha256', key, delivery.rawBody))
          ) {
            throw signatureInvalid('X-Hub-Signature-256 does not match the body and the source secret.');
          }
          return { body: delivery.rawBody, timestamp: null };
        }
        const sha1 = headerValue(delivery, 'x-hub-signature');
        if (sha1 === undefined)
          throw signatureInvalid('GitHub deliveries carry an X-Hub-Signature-256 header.');
        if (!options.allowSha1) {
          throw signatureInvalid(
            'Only X-Hub-Signature (SHA-1) was sent; this source accepts X-Hub-Signature-256 only.',
          );
        }
        if (!sha1.startsWith('sha1=') || !hexMatches(sha1.slice(5), hmac('sha1', key, delivery.rawBody))) {
          throw signatureInvalid('X-Hub-Signature does not match the body and the source secret.');
        }
        return { body: delivery.rawBody, timestamp: null };
      },
    };
  },
};
