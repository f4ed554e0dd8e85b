// The webhook inbox on the wire (docs/inbox.md): the answer to a delivery, and the
// recorded events with how often each was delivered.
import type { FromSchema } from 'json-schema-to-ts';
import { itemsOf, timestamp } from './wireParts.js';

export const inboxAnswerSchema = {
  type: 'object',
  description: 'The job the event created; every redelivery is answered the same.',
  required: ['jobId'],
  properties: { jobId: { type: 'string', format: 'uuid' } },
  additionalProperties: false,
} as const;

export const inboxEventSchema = {
  type: 'object',
  description: 'One recorded webhook event, however often it was delivered.',
  required: [
    'source',
    'eventId',
    'jobId',
    'responseStatus',
    'deliveries',
    'differingPayloads',
    'firstReceivedAt',
    'lastReceivedAt',
  ],
  properties: {
    source: { type: 'string' },
    eventId: { type: 'string', description: "The sender's event id" },
    jobId: { type: ['string', 'null'], format: 'uuid' },
    responseStatus: {
      type: ['integer', 'null'],
      description: 'What every delivery of the event was answered',
    },
    deliveries: { type: 'integer', description: 'How often the sender delivered it' },
    differingPayloads: {
      type: 'integer',
      description: 'Deliveries whose body differed from the first (answered the same)',
    },
    firstReceivedAt: timestamp,
    lastReceivedAt: timestamp,
  },
  additionalProperties: false,
} as const;

export const inboxEventListSchema = itemsOf(inboxEventSchema);

/** What POST /v1/inbox/{source} answers, the first time and on every redelivery. */
export type InboxAnswer = FromSchema<typeof inboxAnswerSchema>;
/** One recorded webhook event. */
export type InboxEvent = FromSchema<typeof inboxEventSchema>;
/** What GET /v1/inbox-events answers: one row per recorded event, newest first. */
export type InboxEventList = FromSchema<typeof inboxEventListSchema>;
