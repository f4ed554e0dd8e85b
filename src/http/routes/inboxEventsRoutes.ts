import type { FastifyInstance } from 'fastify';
import { inboxEventListSchema, inboxEventsQuerySchema } from '../../contract/index.js';
import type { Onejob } from '../../createOnejob.js';
import { ownerOf } from '../requestContext.js';
import { answer, problemResponse, typed } from '../schemas.js';

/**
 * GET /v1/inbox-events: the signed webhooks recorded for the token's owner, newest first.
 * Not under /v1/inbox/, whose routes are public (authenticated by the sender's signature).
 */
export async function inboxEventsRoutes(server: FastifyInstance, { onejob }: { onejob: Onejob }) {
  typed(server).get(
    '/v1/inbox-events',
    {
      schema: {
        summary: "The owner's recorded webhook events, newest first, with how often each was delivered",
        tags: ['inbox'],
        querystring: inboxEventsQuerySchema,
        response: {
          200: answer('One row per event, however often it was delivered', inboxEventListSchema),
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
