// Stripe: `Stripe-Signature: t=<seconds>,v1=<hex>[,v1=<hex>...]`, where each v1 is
// HMAC-SHA256(secret, "<t>.<body>") with the whole `whsec_...` string as the key. A retry
// of an event is re-signed with a new t; the event id `evt_...` is inside the signed body.
import {
  headerValue,
  hexMatches,
  hmac,
  requireFresh,
  requireStrongSecret,
  signatureInvalid,
} from './signatureChecks.js';
import type { SignatureScheme } from './signatureScheme.js';

export const stripeScheme: SignatureScheme = {
  defaultEventId: { kind: 'json', pointer: '/id' },
  // Stripe signs no header: the id must come from the body.
  signedHeaders: [],
  settings: ['toleranceSeconds'],
  verifier(secret, options) {
    const key = Buffer.from(secret, 'utf8');
    // The whsec_ prefix is the same in every secret, so it does not count towards the length.
    requireStrongSecret(Buffer.from(secret.replace(/^whsec_/, ''), 'utf8'));
    return {
      verify(delivery, now) {
        const header = headerValue(delivery, 'stripe-signature');
        if (!header) throw signatureInvalid('Stripe deliveries carry a Stripe-Signature header.');
        let timestamp: string | undefined;
        const signatures: string[] = [];
        // Stripe's own libraries read every "v1" entry, so a rotating secret has two.
        for (const item of header.split(',')) {
          const [name, value] = item.trim().split('=', 2);
          if (name === 't') timestamp = value;
          else if (name === 'v1' && value) signatures.push(value);
        }
        if (!timestamp || !/^\d{1,15}$/.test(timestamp) || signatures.length === 0) {
          throw signatureInvalid('Stripe-Signature must carry t=<seconds> and at least one v1 signature.');
        }
        const seconds = Number(timestamp);
        requireFresh(seconds, now, options.toleranceSeconds, 'Stripe-Signature');
        const expected = hmac('sha256', key, `${timestamp}.`, delivery.rawBody);
        // Every entry is compared, so the time taken does not tell which one matched.
        let matched = false;
        for (const signature of signatures) matched = hexMatches(signature, expected) || matched;
        if (!matched)
          throw signatureInvalid(
            'No v1 signature in Stripe-Signature matches the body and the source secret.',
          );
        return { body: delivery.rawBody, timestamp: new Date(seconds * 1000) };
      },
    };
  },
};
