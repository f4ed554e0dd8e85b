import type { CloudEvent } from '../events/cloudEvent.js';

/** One outbox event as a publisher sees it. */
export interface OutboxEvent {
  id: string;
  type: string;
  subject: string;
  seq: string;
  event: CloudEvent;
  /**
   * The event as stored, JSON text. The relay sets it (and parses `event` only if a
   * publisher reads it), so publishers send this rather than serialising `event` again.
   */
  json?: string;
}

/** The JSON text to send for `e`: the stored text when there is one. */
export function eventJson(e: OutboxEvent): string {
  return e.json ?? JSON.stringify(e.event);
}

/** What the broker said when it accepted an event. */
export interface PublishReceipt {
  /** The broker recognised the id and did not store a second copy (JetStream duplicate window). */
  duplicate?: boolean;
}

/**
 * A destination for outbox events. `publish` resolves once the broker or endpoint has
 * accepted the event durably (PubAck, publisher confirm, 2xx), and throws a PublishError
 * otherwise. It must send the event id along (message id, header) so the receiving side
 * can recognise a republished event.
 */
export interface Publisher {
  readonly name: string;
  readonly kind: string;
  /** Most publishes in flight at once for this publisher (events of one subject never overlap). */
  readonly concurrency: number;
  publish(event: OutboxEvent): Promise<PublishReceipt>;
  close(): Promise<void>;
}

/**
 * Why a publish failed. `unavailable` means the broker could not be reached at all (the
 * event is not at fault: the relay backs off the publisher and the try is not counted
 * towards dead-lettering); otherwise the broker or endpoint refused this event, and the
 * try counts.
 *
 * @example
 * ```ts
 * // In a Publisher's publish(): the broker is down, not the event's fault; the relay backs off.
 * throw new PublishError('broker unreachable', { unavailable: true, cause: error });
 * ```
 */
export class PublishError extends Error {
  readonly unavailable: boolean;
  constructor(message: string, options: { unavailable: boolean; cause?: unknown }) {
    super(message, { cause: options.cause });
    this.name = 'PublishError';
    this.unavailable = options.unavailable;
  }
}

export function isPublishError(error: unknown): error is PublishError {
  return error instanceof PublishError;
}

/** Rejects with `onTimeout()` if `promise` has not settled within `ms`. */
export function withTimeout<T>(promise: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
