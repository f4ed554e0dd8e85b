import type { FastifyInstance } from 'fastify';
import { dashboardInboxSchema, dashboardOutboxSchema, dashboardQuerySchema } from '../contract/index.js';
import type { Onejob } from '../createOnejob.js';
import { ownerOf } from '../http/requestContext.js';
import { answer, typed } from '../http/schemas.js';

/**
 * Summaries the dashboard shows beside the jobs: the outbox backlog and dead letters of
 * the owner's jobs, and the owner's inbox events with their redelivery counts. Owner-scoped
 * reads of the same handles the operator endpoints use.
 */
export async function dashboardDataRoutes(server: FastifyInstance, { onejob }: { onejob: Onejob }) {
  const app = typed(server);
  app.get(
    '/v1/dashboard/outbox',
    {
      schema: {
        summary: "Outbox backlog per publisher and the latest dead letters, for the owner's jobs",
        tags: ['dashboard'],
        querystring: dashboardQuerySchema,
        response: { 200: answer("The owner's outbox summary", dashboardOutboxSchema) },
      },
    },
    async (request) => {
      const ownerId = ownerOf(request);
      const [backlog, dead] = await Promise.all([
        onejob.outbox.deliveryStates({ ownerId }),
        onejob.outbox.deadLetters.list({ ownerId, limit: request.query.limit }),
      ]);
      return {
        backlog,
        deadLetters: dead.items.map((d) => ({
          eventId: d.eventId,
          publisher: d.publisher,
          jobId: d.subject,
          type: d.type,
          attempts: d.attempts,
          replays: d.replays,
          lastError: d.lastError,
          deadAt: d.deadAt,
        })),
      };
    },
  );

  app.get(
    '/v1/dashboard/inbox',
    {
      schema: {
        summary: "The owner's inbox events, newest first, with how often each was delivered",
        tags: ['dashboard'],
        querystring: dashboardQuerySchema,
        response: { 200: answer("The owner's inbox events", dashboardInboxSchema) },
      },
    },
    async (request) => {
      const events = await onejob.inbox.list({
        ownerId: ownerOf(request),
        source: request.query.source ?? null,
        limit: request.query.limit,
      });
      return {
        items: events.map((e) => ({
          source: e.source,
          eventId: e.eventId,
          jobId: e.jobId,
          deliveries: e.deliveries,
          redeliveries: e.deliveries - 1,
          differingPayloads: e.differingPayloads,
          responseStatus: e.responseStatus,
          firstReceivedAt: e.firstReceivedAt,
          lastReceivedAt: e.lastReceivedAt,
        })),
      };
    },
  );
}
