import type { InboxDeps } from '../engine/engineDeps.js';
import { OnejobError } from '../errors/OnejobError.js';
import { acceptDelivery, type DeliveryAnswer } from './acceptDelivery.js';
import { eventIdOf } from './eventIdOf.js';
import type { InboxSource } from './inboxSources.js';

export interface RawDelivery {
  /** Lower-case header names. */
  headers: Record<string, string | string[] | undefined>;
  rawBody: Buffer;
  traceparent?: string | null;
}

/**
 * A webhook delivery from its raw bytes to its answer: the event id (400 without one),
 * the signature (401, nothing written), the body as the job's input, then the inbox row
 * and the job in one transaction.
 */
export async function receiveWebhook(
  onejob: InboxDeps,
  source: InboxSource,
  delivery: RawDelivery,
  now: Date = new Date(),
): Promise<DeliveryAnswer & { eventId: string }> {
  let parsed: { value: unknown } | undefined;
  const body = () => {
    if (!parsed) {
      try {
        parsed = { value: JSON.parse(delivery.rawBody.toString('utf8')) };
      } catch {
        throw new OnejobError('invalid_json', 'The webhook body is not valid JSON.');
      }
    }
    return parsed.value;
  };
  const eventId = eventIdOf(source, delivery.headers, body);
  source.verifier.verify({ headers: delivery.headers, rawBody: delivery.rawBody }, now);
  const input = body();
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw new OnejobError(
      'request_invalid',
      'The webhook body must be a JSON object; it becomes the job input.',
    );
  }
  const answer = await acceptDelivery(onejob, {
    source,
    eventId,
    input: input as Record<string, unknown>,
    rawBody: delivery.rawBody,
    traceparent: delivery.traceparent ?? null,
  });
  return { ...answer, eventId };
}
