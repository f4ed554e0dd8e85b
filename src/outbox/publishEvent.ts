import { v7 as uuidv7 } from 'uuid';
import type { Queryable } from '../db/createPool.js';
import { type CloudEvent, cloudEvent } from '../events/cloudEvent.js';
import { UUID } from './uuidPattern.js';

/** An event of your own to write into the outbox. */
export interface PublishEventInput {
  /** CloudEvent type, for example `shop.order.paid`. NATS uses it as the subject, RabbitMQ as the routing key. */
  type: string;
  /** What the event is about (for example an order id); events of one subject are published in order. */
  subject: string;
  data?: Record<string, unknown>;
  /** Your own id (a UUID) to make the write idempotent (per owner); a new UUIDv7 otherwise. */
  id?: string;
  /**
   * The tenant the event belongs to, stored with it; on distributed PostgreSQL it decides
   * the shard, so give the owner of the data the event is about. Default `''`,
   * which no HTTP caller can be: events without an owner all share one shard.
   */
  ownerId?: string;
  source?: string;
  time?: Date;
  /** W3C traceparent of the work that caused the event. */
  traceparent?: string | null;
}

/** The stored CloudEvent, and whether this call wrote it. */
export interface PublishEventResult {
  event: CloudEvent;
  /** False when `id` was already in the event log: nothing new was written and `event` is the stored one. */
  inserted: boolean;
}

/** The owner of an event published without one. */
export const NO_OWNER = '';

// One row of the event log, about your subject instead of a job; its audit type is its
// CloudEvent type. The id is the log's key with the owner: a job event's id is refused too.
const INSERT_SQL = `
INSERT INTO onejob.job_events (id, owner_id, subject, type, publish, event) VALUES ($1, $2, $3, $4, $4, $5::jsonb)
ON CONFLICT (id, owner_id) DO NOTHING
RETURNING id`;

const READ_SQL = `SELECT event FROM onejob.job_events WHERE id = $1 AND owner_id = $2`;

/**
 * Writes your own event into the event log with your `pg` client: pass the client of your
 * open transaction and the event commits or rolls back with your rows. The relay then
 * publishes it like onejob's own events.
 *
 * @example
 * ```ts
 * await publishEvent(client, { type: 'shop.order.paid', subject: 'o-42', data: { amount: 1999 } }); // in your transaction
 * ```
 */
export async function publishEvent(db: Queryable, input: PublishEventInput): Promise<PublishEventResult> {
  if (typeof input.type !== 'string' || input.type.length === 0 || input.type.length > 255) {
    throw new TypeError('publishEvent: type must be a string of 1 to 255 characters');
  }
  if (typeof input.subject !== 'string' || input.subject.length === 0) {
    throw new TypeError('publishEvent: subject must be a non-empty string');
  }
  if (input.id !== undefined && !UUID.test(input.id)) throw new TypeError('publishEvent: id must be a UUID');
  if (input.ownerId !== undefined && typeof input.ownerId !== 'string')
    throw new TypeError('publishEvent: ownerId must be a string');
  const ownerId = input.ownerId ?? NO_OWNER;
  const id = input.id ?? uuidv7();
  const event: CloudEvent = cloudEvent({
    id,
    source: input.source,
    type: input.type,
    subject: input.subject,
    time: input.time,
    data: input.data ?? {},
    traceparent: input.traceparent,
  });
  const { rowCount } = await db.query(INSERT_SQL, [id, ownerId, input.subject, input.type, event]);
  if (rowCount) return { event, inserted: true };
  const { rows } = await db.query<{ event: CloudEvent }>(READ_SQL, [id, ownerId]);
  return { event: rows[0]?.event ?? event, inserted: false };
}
