import type { InboxDeps } from '../engine/engineDeps.js';
import { invalidJson } from '../errors/invalidJson.js';
import { OnejobError } from '../errors/OnejobError.js';
import { acceptDelivery, type DeliveryAnswer, type DeliveryBatcher } from './acceptDelivery.js';
import { eventIdOf } from './eventIdOf.js';
import type { InboxSource } from './inboxSources.js';

/** One webhook delivery as received: the headers and the body bytes, before any parsing. */
export interface RawDelivery {
  /** Lower-case header names. */
  headers: Record<string, string | string[] | undefined>;
  rawBody: Buffer;
  traceparent?: string | null;
}

/**
 * A webhook delivery from its raw bytes to its answer: the signature first (401, nothing
 * written, and nothing said about where this source reads its event id), then the event id
 * from what the signature covers (400 without one), the body as the job's input, then the
 * inbox row and the job in one transaction (shared with other deliveries through `batcher`).
 *
 * @example
 * ```ts
 * const source = onejob.inbox.sources().get('shop')!;
 * const answer = await receiveWebhook(onejob, source, { headers: req.headers, rawBody });
 * ```
 */
export async function receiveWebhook(
  onejob: InboxDeps,
  source: InboxSource,
  delivery: RawDelivery,
  now: Date = new Date(),
  batcher?: DeliveryBatcher,
): Promise<DeliveryAnswer & { eventId: string }> {
  const signed = source.verifier.verify({ headers: delivery.headers, rawBody: delivery.rawBody }, now);
  let parsed: { value: unknown } | undefined;
  const body = () => {
    if (!parsed) {
      const text = signed.body.toString('utf8');
      try {
        parsed = { value: JSON.parse(text) };
      } catch {
        throw invalidJson(text, 'The webhook body');
      }
    }
    return parsed.value;
  };
  const eventId = eventIdOf(source, delivery.headers, signed, body);
  const input = body();
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw new OnejobError(
      'request_invalid',
      'The webhook body must be a JSON object; it becomes the job input.',
    );
  }
  const answer = await acceptDelivery(
    onejob,
    {
      source,
      eventId,
      input: input as Record<string, unknown>,
      rawBody: signed.body,
      traceparent: delivery.traceparent ?? null,
    },
    batcher,
  );
  return { ...answer, eventId };
}
