// The outbox's operator views on the wire (docs/outbox.md): backlog and dead letters.
import type { FromSchema } from 'json-schema-to-ts';
import { timestamp } from './wireParts.js';

export const publisherBacklogSchema = {
  type: 'object',
  description: "One publisher's backlog: deliveries still to make and the age of the oldest.",
  required: ['publisher', 'kind', 'pending', 'dead', 'oldestAgeSeconds'],
  properties: {
    publisher: { type: 'string' },
    kind: { type: 'string' },
    pending: { type: 'integer', description: 'Deliveries not yet accepted by the broker or endpoint' },
    dead: { type: 'integer', description: 'Dead letters waiting for an operator' },
    oldestAgeSeconds: { type: 'number', description: 'Age of the oldest pending delivery, 0 without one' },
  },
  additionalProperties: false,
} as const;

export const backlogSchema = {
  type: 'object',
  required: ['publishers'],
  properties: { publishers: { type: 'array', items: publisherBacklogSchema } },
  additionalProperties: false,
} as const;

export const cloudEventSchema = {
  type: 'object',
  description: 'A CloudEvents 1.0 structured-mode event, as published.',
  required: ['specversion', 'id', 'source', 'type', 'subject', 'time', 'datacontenttype', 'data'],
  properties: {
    specversion: { const: '1.0' },
    id: { type: 'string' },
    source: { type: 'string' },
    type: { type: 'string' },
    subject: { type: 'string' },
    time: timestamp,
    datacontenttype: { const: 'application/json' },
    data: { type: 'object', additionalProperties: true },
    traceparent: { type: 'string', description: 'W3C trace context of the request that caused it' },
  },
  additionalProperties: false,
} as const;

export const deadLetterSchema = {
  type: 'object',
  description: 'An event a publisher gave up on after maxDeliveries refused tries, until it is replayed.',
  required: [
    'eventId',
    'publisher',
    'type',
    'subject',
    'attempts',
    'lastError',
    'replays',
    'createdAt',
    'deadAt',
    'event',
  ],
  properties: {
    eventId: { type: 'string', format: 'uuid' },
    publisher: { type: 'string' },
    type: { type: 'string' },
    subject: { type: 'string' },
    attempts: { type: 'integer', description: 'Refused tries, the last of which made it a dead letter' },
    lastError: { type: ['string', 'null'] },
    replays: { type: 'integer' },
    createdAt: timestamp,
    deadAt: timestamp,
    event: cloudEventSchema,
  },
  additionalProperties: false,
} as const;

export const deadLetterPageSchema = {
  type: 'object',
  required: ['items', 'nextCursor'],
  properties: {
    items: { type: 'array', items: deadLetterSchema },
    nextCursor: { type: ['string', 'null'] },
  },
  additionalProperties: false,
} as const;

export const replayedSchema = {
  type: 'object',
  description: 'The deliveries now pending again.',
  required: ['replayed'],
  properties: {
    replayed: {
      type: 'array',
      items: {
        type: 'object',
        required: ['eventId', 'publisher'],
        properties: { eventId: { type: 'string' }, publisher: { type: 'string' } },
        additionalProperties: false,
      },
    },
  },
  additionalProperties: false,
} as const;

/** One publisher's backlog: deliveries still to make and the age of the oldest. */
export type PublisherBacklog = FromSchema<typeof publisherBacklogSchema>;
/** What GET /v1/outbox/backlog answers: one entry per registered publisher. */
export type Backlog = FromSchema<typeof backlogSchema>;
/** An event a publisher gave up on after `maxDeliveries` refused tries, until it is replayed. */
export type DeadLetter = FromSchema<typeof deadLetterSchema>;
/** A page of dead letters; pass `nextCursor` back as `cursor` for the next one. */
export type DeadLetterPage = FromSchema<typeof deadLetterPageSchema>;
/** What replaying a dead letter answers: the deliveries now pending again. */
export type Replayed = FromSchema<typeof replayedSchema>;
