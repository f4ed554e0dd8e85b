// Webhook signature schemes by name (the `scheme` of an inbox source). Add one with
// registerSignatureScheme before the server starts; a source naming an unknown scheme
// refuses to start.
import { githubScheme } from './schemes/githubScheme.js';
import type { SignatureScheme } from './schemes/signatureScheme.js';
import { standardWebhooksScheme } from './schemes/standardWebhooksScheme.js';
import { stripeScheme } from './schemes/stripeScheme.js';

export type {
  EventIdSource,
  SchemeOptions,
  SignatureScheme,
  SignatureVerifier,
  SignedDelivery,
  SignedPayload,
} from './schemes/signatureScheme.js';

export const DEFAULT_TOLERANCE_SECONDS = 300;

const schemes = new Map<string, SignatureScheme>([
  ['standard-webhooks', standardWebhooksScheme],
  ['stripe', stripeScheme],
  ['github', githubScheme],
]);

/**
 * Adds a signature scheme that inbox sources can name in `scheme`. Call it before the
 * server or `onejob.inbox` builds its sources.
 *
 * @example
 * ```ts
 * registerSignatureScheme('my-hmac', {
 *   defaultEventId: { kind: 'json', pointer: '/id' },
 *   signedHeaders: [],
 *   settings: ['toleranceSeconds'],
 *   verifier(secret, { toleranceSeconds }) {
 *     return {
 *       verify({ headers, rawBody }, now) {
 *         // throw new OnejobError('signature_invalid', '...') unless valid
 *         return { body: rawBody, timestamp: null };
 *       },
 *     };
 *   },
 * });
 * ```
 */
export function registerSignatureScheme(name: string, scheme: SignatureScheme): void {
  schemes.set(name, scheme);
}

export function signatureScheme(name: string): SignatureScheme | undefined {
  return schemes.get(name);
}

export function signatureSchemeNames(): string[] {
  return [...schemes.keys()];
}
