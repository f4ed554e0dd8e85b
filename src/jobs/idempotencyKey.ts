import { OnejobError } from '../errors/OnejobError.js';

// Printable ASCII, space to tilde. Keys travel in HTTP headers and logs, so nothing else.
const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

/** Checks an Idempotency-Key header value and returns it, or throws the matching 400. */
export function parseIdempotencyKey(value: string | string[] | undefined): string {
  if (value === undefined) {
    throw new OnejobError(
      'idempotency_key_missing',
      'Send an Idempotency-Key header that names this user intent.',
    );
  }
  if (Array.isArray(value)) {
    throw new OnejobError('idempotency_key_invalid', 'Send exactly one Idempotency-Key header.');
  }
  if (!KEY_PATTERN.test(value)) {
    throw new OnejobError(
      'idempotency_key_invalid',
      value.length === 0
        ? 'The Idempotency-Key header is empty.'
        : value.length > 255
          ? `The Idempotency-Key header is ${value.length} characters long; the limit is 255.`
          : 'The Idempotency-Key header contains characters outside printable ASCII.',
    );
  }
  return value;
}
