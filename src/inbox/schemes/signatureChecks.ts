// Small pieces every HMAC scheme needs, so each scheme file holds only its own format.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { OnejobError } from '../../errors/OnejobError.js';
import type { SignedDelivery } from './signatureScheme.js';

/** Shorter shared secrets can be guessed offline from one captured delivery. */
export const MIN_SECRET_BYTES = 24;

export function signatureInvalid(detail: string): OnejobError {
  return new OnejobError('signature_invalid', detail);
}

/** The header's value; a repeated header counts as its first value. */
export function headerValue(delivery: SignedDelivery, name: string): string | undefined {
  const value = delivery.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Throws (the server refuses to start) when the key is too short to resist guessing. */
export function requireStrongSecret(key: Buffer): Buffer {
  if (key.length < MIN_SECRET_BYTES) {
    throw new Error(`the key is ${key.length} bytes; at least ${MIN_SECRET_BYTES} are required`);
  }
  return key;
}

export function hmac(algorithm: 'sha256' | 'sha1', key: Buffer, ...parts: (string | Buffer)[]): Buffer {
  const mac = createHmac(algorithm, key);
  for (const part of parts) mac.update(part);
  return mac.digest();
}

/** Constant-time comparison of a hex signature from a header with the expected digest. */
export function hexMatches(givenHex: string, expected: Buffer): boolean {
  if (givenHex.length !== expected.length * 2 || !/^[0-9a-fA-F]+$/.test(givenHex)) return false;
  return timingSafeEqual(Buffer.from(givenHex, 'hex'), expected);
}

/** Throws unless the signed timestamp (seconds since the epoch) is within the tolerance of now. */
export function requireFresh(seconds: number, now: Date, toleranceSeconds: number, header: string): void {
  const skew = Math.abs(now.getTime() / 1000 - seconds);
  if (skew > toleranceSeconds) {
    throw signatureInvalid(
      `The ${header} timestamp is ${Math.round(skew)} s from now; the tolerance is ${toleranceSeconds} s.`,
    );
  }
}
