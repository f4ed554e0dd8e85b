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
  refuseReservedKey({ idempotencyKey: value });
  return value;
}

/**
 * Keys onejob derives itself: the inbox creates each event's job under
 * `inbox:<source>:<event id>`. A tenant who took such a key first would make the signed
 * delivery of that event a conflict for ever, so tenant-facing calls refuse the prefix.
 */
export const RESERVED_KEY_PREFIX = 'inbox:';

// Job requests the engine built itself (the inbox's), allowed the reserved prefix. A
// WeakSet of request objects rather than an option: nothing a caller can pass in a plain
// object opts in.
const engineRequests = new WeakSet<object>();

/** Marks a job request built by the engine, so jobs.create accepts its reserved key. */
export function engineJobRequest<T extends object>(req: T): T {
  engineRequests.add(req);
  return req;
}

/** Throws reserved_namespace when a tenant's request uses a key in the engine's namespace. */
export function refuseReservedKey(req: { idempotencyKey: string }): void {
  if (engineRequests.has(req) || typeof req.idempotencyKey !== 'string') return;
  if (req.idempotencyKey.startsWith(RESERVED_KEY_PREFIX)) {
    throw new OnejobError(
      'reserved_namespace',
      `Idempotency keys starting with ${RESERVED_KEY_PREFIX} are onejob's own (the jobs of inbox deliveries); choose another key.`,
    );
  }
}
