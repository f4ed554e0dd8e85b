// Webhook signature schemes by name (the `scheme` of an inbox source). Add one with
// registerSignatureScheme before the server starts; a source naming an unknown scheme
// refuses to start.
import { standardWebhooksScheme } from './standardWebhooksScheme.js';

/** The parts of a delivery a signature covers. */
export interface SignedDelivery {
  /** Lower-case header names, as Node delivers them. */
  headers: Record<string, string | string[] | undefined>;
  /** The request body exactly as received: signatures cover bytes, not parsed JSON. */
  rawBody: Buffer;
}

/** What a signature scheme builds for one source: checks each delivery. */
export interface SignatureVerifier {
  /** Throws OnejobError('signature_invalid') unless the delivery is signed with the secret and fresh. */
  verify(delivery: SignedDelivery, now: Date): void;
}

export interface SchemeOptions {
  /** How far the signed timestamp may be from now, either way. */
  toleranceSeconds: number;
}

/** Builds a verifier for one source from its secret; throws if the secret is unusable. */
export type SignatureScheme = (secret: string, options: SchemeOptions) => SignatureVerifier;

export const DEFAULT_TOLERANCE_SECONDS = 300;

const schemes = new Map<string, SignatureScheme>([['standard-webhooks', standardWebhooksScheme]]);

/**
 * Adds a signature scheme that inbox sources can name in `scheme`. Call it before the
 * server or `onejob.inbox` builds its sources.
 *
 * @example
 * ```ts
 * import { OnejobError, registerSignatureScheme } from 'onejob';
 *
 * registerSignatureScheme('my-hmac', (secret, { toleranceSeconds }) => ({
 *   verify({ headers, rawBody }, now) {
 *     if (!validHmac(secret, headers, rawBody, now, toleranceSeconds)) throw new OnejobError('signature_invalid', 'bad signature');
 *   },
 * }));
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
