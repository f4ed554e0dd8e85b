// What the dashboard's summary routes answer (docs/dashboard.md): owner-scoped views of
// the outbox and the inbox, beside the jobs.
import type { FromSchema } from 'json-schema-to-ts';
import { inboxEventSchema } from './inboxSchemas.js';
import { timestamp } from './wireParts.js';

export const deliveryStateCountSchema = {
  type: 'object',
  description: "How many of the owner's deliveries to one publisher are in one state, and the oldest.",
  required: ['publisher', 'state', 'count', 'oldestAt'],
  properties: {
    publisher: { type: 'string' },
    state: { enum: ['pending', 'published', 'dead'] },
    count: { type: 'integer' },
    oldestAt: { ...timestamp, description: 'When the oldest of them was written' },
  },
  additionalProperties: false,
} as const;

export const dashboardOutboxSchema = {
  type: 'object',
  description: "Deliveries per publisher and state, and the latest dead letters, of the owner's jobs.",
  required: ['backlog', 'deadLetters'],
  properties: {
    backlog: { type: 'array', items: deliveryStateCountSchema },
    deadLetters: {
      type: 'array',
      items: {
        type: 'object',
        required: ['eventId', 'publisher', 'jobId', 'type', 'attempts', 'replays', 'lastError', 'deadAt'],
        properties: {
          eventId: { type: 'string', format: 'uuid' },
          publisher: { type: 'string' },
          jobId: { type: 'string' },
          type: { type: 'string' },
          attempts: { type: 'integer' },
          replays: { type: 'integer' },
          lastError: { type: ['string', 'null'] },
          deadAt: timestamp,
        },
        additionalProperties: false,
      },
    },
  },
  additionalProperties: false,
} as const;

export const dashboardInboxSchema = {
  type: 'object',
  description: "The owner's inbox events, newest first, with how often each was delivered.",
  required: ['items'],
  properties: {
    items: {
      type: 'array',
      items: {
        ...inboxEventSchema,
        required: [...inboxEventSchema.required, 'redeliveries'],
        properties: {
          ...inboxEventSchema.properties,
          redeliveries: { type: 'integer', description: 'deliveries - 1' },
        },
      },
    },
  },
  additionalProperties: false,
} as const;

/** How many of an owner's deliveries to one publisher are in one state, and when the oldest was written. */
export type DeliveryStateCount = FromSchema<typeof deliveryStateCountSchema>;
/** What GET /v1/dashboard/outbox answers. */
export type DashboardOutbox = FromSchema<typeof dashboardOutboxSchema>;
/** What GET /v1/dashboard/inbox answers. */
export type DashboardInbox = FromSchema<typeof dashboardInboxSchema>;
