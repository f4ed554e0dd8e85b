import { createHash } from 'node:crypto';
import { OnejobError } from '../errors/OnejobError.js';
import type { InboxSource } from './inboxSources.js';
import type { SignedPayload } from './signatureSchemes.js';

// Event ids become part of an idempotency key and travel in logs: printable ASCII only.
const EVENT_ID_PATTERN = /^[\x21-\x7e][\x20-\x7e]{0,254}$/;

/**
 * The sender's stable event id: the only deduplication key. Read only after the signature
 * is verified, from a signed header, the signed body, or the signed body's SHA-256; never
 * from a timestamp, which a sender changes between deliveries of one event.
 */
export function eventIdOf(
  source: InboxSource,
  headers: Record<string, string | string[] | undefined>,
  signed: SignedPayload,
  body: () => unknown,
): string {
  const spec = source.eventId;
  if (spec.kind === 'body-sha256') return `sha256:${createHash('sha256').update(signed.body).digest('hex')}`;
  let value: unknown;
  if (spec.kind === 'header') {
    const h = headers[spec.name];
    value = Array.isArray(h) ? h[0] : h;
  } else {
    value = resolvePointer(body(), spec.pointer);
  }
  if (typeof value === 'number' && Number.isSafeInteger(value)) value = String(value);
  const where = spec.kind === 'header' ? `header ${spec.name}` : `JSON pointer ${spec.pointer}`;
  if (value === undefined || value === null || value === '') {
    throw new OnejobError(
      'event_id_missing',
      `Source ${source.name} takes the event id from the ${where}, and the delivery has none.`,
    );
  }
  if (typeof value !== 'string' || !EVENT_ID_PATTERN.test(value)) {
    throw new OnejobError(
      'event_id_invalid',
      `The event id at the ${where} must be a string of 1 to 255 printable ASCII characters.`,
    );
  }
  return value;
}

/** RFC 6901 JSON pointer; undefined when any step is missing. */
export function resolvePointer(document: unknown, pointer: string): unknown {
  if (pointer === '') return document;
  let current: unknown = document;
  for (const raw of pointer.slice(1).split('/')) {
    const token = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (Array.isArray(current) && /^(0|[1-9]\d*)$/.test(token)) current = current[Number(token)];
    else if (current !== null && typeof current === 'object' && Object.hasOwn(current, token)) {
      current = (current as Record<string, unknown>)[token];
    } else return undefined;
  }
  return current;
}
