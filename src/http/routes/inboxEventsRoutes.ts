import type { FastifyInstance } from 'fastify';
import type { Onejob } from '../../createOnejob.js';
import { ownerOf } from '../requestContext.js';
import { problemResponse } from '../schemas.js';

const eventSchema = {
  type: 'object',
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
    firstReceivedAt: { type: 'string', format: 'date-time' },
    lastReceivedAt: { type: 'string', format: 'date-time' },
  },
} as const;

/**
 * GET /v1/inbox-events: the signed webhooks recorded for the token's owner, newest first.
 * Not under /v1/inbox/, whose routes are public (authenticated by the sender's signature).
 */
export async function inboxEventsRoutes(app: FastifyInstance, { onejob }: { onejob: Onejob }) {
  app.get<{ Querystring: { source?: string; limit: number } }>(
    '/v1/inbox-events',
    {
      schema: {
        summary: "The owner's recorded webhook events, newest first, with how often each was delivered",
        tags: ['inbox'],
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            source: { type: 'string', maxLength: 200 },
            limit: { type: 'integer', minimum: 1, maximum: 500, default: 50 },
          },
        },
        response: {
          200: {
            description: 'One row per event, however often it was delivered',
            type: 'object',
            required: ['items'],
            properties: { items: { type: 'array', items: eventSchema } },
          },
          401: problemResponse('Missing or invalid token'),
        },
      },
    },
    async (request) => {
      // The engine's inbox handle, scoped to the token's owner; its view minus the owner field.
      const events = await onejob.inbox.list({
        ownerId: ownerOf(request),
        source: request.query.source ?? null,
        limit: request.query.limit,
      });
      return { items: events.map(({ ownerId: _owner, ...event }) => event) };
    },
  );
}
