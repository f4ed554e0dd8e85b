import type { FastifyInstance } from 'fastify';
import type { Onejob } from '../../createOnejob.js';
import { ownerOf } from '../requestContext.js';
import { problemResponse } from '../schemas.js';

// Owner-scoped: the events that created (or replayed) this owner's jobs.
const LIST_SQL = `
SELECT source, event_id, job_id, response_status, deliveries, differing_payloads, first_received_at, last_received_at
FROM onejob.inbox_events
WHERE owner_id = $1 AND ($2::text IS NULL OR source = $2)
ORDER BY first_received_at DESC, source, event_id
LIMIT $3`;

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
      const { rows } = await onejob.pool.query(LIST_SQL, [
        ownerOf(request),
        request.query.source ?? null,
        request.query.limit,
      ]);
      return {
        items: rows.map((r) => ({
          source: r.source,
          eventId: r.event_id,
          jobId: r.job_id,
          responseStatus: r.response_status,
          deliveries: r.deliveries,
          differingPayloads: r.differing_payloads,
          firstReceivedAt: r.first_received_at.toISOString(),
          lastReceivedAt: r.last_received_at.toISOString(),
        })),
      };
    },
  );
}
