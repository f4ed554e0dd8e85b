import type { FastifyInstance } from 'fastify';
import { idParamsSchema, jobDeliveryListSchema, jobEventListSchema } from '../../contract/index.js';
import type { Onejob } from '../../createOnejob.js';
import { ownerOf } from '../requestContext.js';
import { answer, problemResponse, typed } from '../schemas.js';

/** Read-only views of one job's history, for the dashboard and for operators. */
export async function jobEventsRoutes(server: FastifyInstance, { onejob }: { onejob: Onejob }) {
  const app = typed(server);
  app.get(
    '/v1/jobs/:id/events',
    {
      schema: {
        summary:
          "A job's audit trail, oldest first (created, attempts, unknown outcomes, lost races, abandons)",
        tags: ['jobs'],
        params: idParamsSchema,
        response: {
          200: answer('The events', jobEventListSchema),
          404: problemResponse('No such job for this owner'),
        },
      },
    },
    // Another owner's job answers 404, exactly like GET /v1/jobs/{id}.
    async (request) => ({ items: await onejob.jobs.events(ownerOf(request), request.params.id) }),
  );

  app.get(
    '/v1/jobs/:id/deliveries',
    {
      schema: {
        summary: "The job's outbox events and their delivery state per publisher",
        tags: ['jobs'],
        params: idParamsSchema,
        response: {
          200: answer('The outbox events of the job, oldest first', jobDeliveryListSchema),
          404: problemResponse('No such job for this owner'),
        },
      },
    },
    async (request) => ({ items: await onejob.jobs.deliveries(ownerOf(request), request.params.id) }),
  );
}
